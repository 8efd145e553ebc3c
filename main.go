// Command kleinbild generates images locally with FLUX.2-klein. With no arguments it opens
// the desktop app; subcommands serve scripting, tests and benchmarks (kleinbild help).
package main

import (
	_ "envfix/fynelocale" // first of all: keeps Fyne from complaining about LANG=C.UTF-8
	"flag"
	"fmt"
	"os"
	"strings"

	"kleinbild/app"
	"kleinbild/app/desktop"
	"kleinbild/cli"
	"kleinbild/engine"
	"kleinbild/internal/atomicfile"
)

func main() {
	noWaylandWithoutSession(os.Getenv, os.Setenv)
	if gui, flags := route(os.Args[1:]); gui {
		os.Exit(runGUI(flags))
	}
	attachConsole()
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}

// noWaylandWithoutSession points WAYLAND_DISPLAY at a socket path that does not exist when
// there is no desktop session (no XDG_RUNTIME_DIR and no WAYLAND_DISPLAY: containers, CI,
// ssh). Probing GPUs makes the Vulkan and EGL loaders try Wayland, and libwayland prints
// "error: XDG_RUNTIME_DIR is invalid or not set in the environment." for every try (five
// lines before each subcommand's output) unless the display name is an absolute path.
// Without a session no Wayland connection could succeed anyway; a real session is left
// alone.
func noWaylandWithoutSession(getenv func(string) string, setenv func(string, string) error) {
	if getenv("XDG_RUNTIME_DIR") == "" && getenv("WAYLAND_DISPLAY") == "" {
		_ = setenv("WAYLAND_DISPLAY", "/nonexistent/kleinbild-no-wayland-session")
	}
}

// route tells the desktop app from a subcommand: no arguments, "gui [flags]", or flags with
// no subcommand ("kleinbild --data DIR") open the app, and flags are what runGUI parses;
// anything else (a command name, help, -h) goes to cli.Run.
func route(args []string) (gui bool, flags []string) {
	switch {
	case len(args) == 0:
		return true, nil
	case args[0] == "gui":
		return true, args[1:]
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		return false, nil
	case strings.HasPrefix(args[0], "-"):
		return true, args
	}
	return false, nil
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "kleinbild:", err)
	return 1
}

// runGUI opens the desktop app with the gui flags (see route).
func runGUI(args []string) int {
	opts := app.Options{Version: cli.Version}
	if args != nil {
		fs := flag.NewFlagSet("kleinbild gui", flag.ContinueOnError)
		fs.StringVar(&opts.ModelDir, "model", "", "model folder to use (remembered otherwise)")
		fs.StringVar(&opts.DataDir, "data", "", "data folder for the gallery and settings")
		fs.StringVar(&opts.Prompt, "prompt", "", "prompt to start with")
		fs.BoolVar(&opts.AutoGenerate, "generate", false, "generate once at start")
		fs.IntVar(&opts.Count, "count", 0, fmt.Sprintf("images per run for --generate (1 to %d; default: the remembered setting)", engine.MaxCount))
		fs.StringVar(&opts.ScreenshotPath, "screenshot", "", "after the generation, save a window screenshot here and quit")
		fs.StringVar(&opts.Backend, "backend", "", cli.BackendHelp()+". For this session; the app's model settings choose it for good")
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return 0
			}
			return 2
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(os.Stderr, "kleinbild gui: unexpected argument %q\n", fs.Arg(0))
			return 2
		}
		if opts.Backend != "" {
			if err := cli.CheckBackend(opts.Backend); err != nil {
				fmt.Fprintf(os.Stderr, "kleinbild gui: %v\n", err)
				return 2
			}
		}
		if opts.Count < 0 || opts.Count > engine.MaxCount {
			fmt.Fprintf(os.Stderr, "kleinbild gui: --count %d: use 1 to %d\n", opts.Count, engine.MaxCount)
			return 2
		}
		opts.QuitAfter = opts.ScreenshotPath != ""
		if opts.ScreenshotPath != "" {
			if err := atomicfile.CheckOutput(opts.ScreenshotPath, engine.ModelFiles(opts.ModelDir)...); err != nil {
				fmt.Fprintf(os.Stderr, "kleinbild gui: --screenshot: %v\n", err)
				return 1
			}
		}
	}
	if opts.Backend == "" {
		// A bad $KLEINBILD_BACKEND is not ignored without a word (the app then picks its
		// device as usual).
		if err := cli.CheckBackend(""); err != nil {
			fmt.Fprintf(os.Stderr, "kleinbild: warning: %v\n", err)
		}
	}
	if err := desktop.Run(opts); err != nil {
		return fail(err)
	}
	return 0
}
