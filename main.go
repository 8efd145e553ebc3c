// Command kleinbild generates images locally with FLUX.2-klein. With no arguments it opens
// the desktop app; subcommands serve scripting, tests and benchmarks (kleinbild help).
package main

import (
	"flag"
	"fmt"
	"os"

	"kleinbild/app"
	"kleinbild/app/cli"
	"kleinbild/app/desktop"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 || args[0] == "gui" {
		os.Exit(runGUI(args))
	}
	os.Exit(cli.Run(args, os.Stdout, os.Stderr))
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "kleinbild:", err)
	return 1
}

// runGUI opens the desktop app. args is empty or starts with "gui".
func runGUI(args []string) int {
	var opts app.Options
	if len(args) > 0 {
		fs := flag.NewFlagSet("kleinbild gui", flag.ContinueOnError)
		fs.StringVar(&opts.ModelDir, "model", "", "model folder to use (remembered otherwise)")
		fs.StringVar(&opts.DataDir, "data", "", "data folder for the gallery and settings")
		fs.StringVar(&opts.Prompt, "prompt", "", "prompt to start with")
		fs.BoolVar(&opts.AutoGenerate, "generate", false, "generate once at start")
		fs.StringVar(&opts.ScreenshotPath, "screenshot", "", "after the generation, save a window screenshot here and quit")
		fs.StringVar(&opts.Backend, "backend", "", cli.BackendHelp()+". For this session; the app's model settings choose it for good")
		if err := fs.Parse(args[1:]); err != nil {
			if err == flag.ErrHelp {
				return 0
			}
			return 2
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(os.Stderr, "kleinbild gui: unexpected argument %q\n", fs.Arg(0))
			return 2
		}
		if err := cli.CheckBackend(opts.Backend); err != nil {
			fmt.Fprintf(os.Stderr, "kleinbild gui: %v\n", err)
			return 2
		}
		opts.QuitAfter = opts.ScreenshotPath != ""
	}
	if err := desktop.Run(opts); err != nil {
		return fail(err)
	}
	return 0
}
