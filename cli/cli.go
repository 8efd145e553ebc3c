// Package cli implements kleinbild's subcommands (tokens, encode, generate, info, ...).
// Their flags and output formats are used by scripts and outside checks: keep them stable.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Version is the software version written into image metadata.
const Version = "0.1.0"

// command is one subcommand.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"generate", "generate an image from a prompt (and optional reference images)", runGenerate},
		{"tokens", "print the Qwen3 chat-template token ids of a prompt as JSON", runTokens},
		{"encode", "write the text encoder's prompt embedding as safetensors", runEncode},
		{"info", "check a model folder and describe it", runInfo},
		{"download", "download a model from Hugging Face (resumable), or --verify a folder", runDownload},
		{"randmodel", "write a random-weight model folder in the real layout (for benchmarks)", runRandModel},
		{"bench", "time end-to-end generations and report per-phase speed and memory", runBench},
		{"tune", "tune the GPU's kernels for this device (cached; first runs do it on their own)", runTune},
		{"devices", "list the compute devices (CPU backends, GPU adapters) that --backend takes", runDevices},
		{"version", "print the version", func(_ []string, stdout, _ io.Writer) error {
			_, err := fmt.Fprintln(stdout, "kleinbild", Version)
			return err
		}},
	}
}

// Usage writes the top-level help.
func Usage(w io.Writer) {
	fmt.Fprintln(w, "Kleinbild: local FLUX.2-klein image generation.")
	fmt.Fprintln(w, "\nUsage:\n  kleinbild                 open the desktop app\n  kleinbild gui [flags]     open the desktop app with options (see kleinbild gui -h)\n  kleinbild COMMAND [flags]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'kleinbild COMMAND -h' for a command's flags.")
}

// Run executes a subcommand and returns the process exit code: 0 success, 1 failure,
// 2 usage error.
func Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		Usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			msg := any(err)
			if u, ok := err.(*usageError); ok { // as given, without the "usage: " it reads as when wrapped
				msg = u.Err
			}
			fmt.Fprintf(stderr, "kleinbild %s: %v\n", c.name, msg)
			return 2
		default:
			fmt.Fprintf(stderr, "kleinbild %s: error: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "kleinbild: unknown command %q\n\n", args[0])
	Usage(stderr)
	return 2
}

// stdin is where -p - reads the prompt from; tests replace it.
var stdin io.Reader = os.Stdin

// errUsage matches every usage error (errors.Is): a *usageError.
var errUsage = errors.New("usage")

// usageError is a usage error: a wrong or missing flag or argument (exit status 2).
type usageError struct{ Err error }

func (e *usageError) Error() string        { return errUsage.Error() + ": " + e.Err.Error() }
func (e *usageError) Unwrap() error        { return e.Err }
func (e *usageError) Is(target error) bool { return target == errUsage }

func usageErr(format string, a ...any) error {
	return &usageError{Err: fmt.Errorf(format, a...)}
}

// newFlags makes a FlagSet whose errors are returned, not printed and exited on, and
// whose whole numbers read decimal (decimalFlag, set up by parse).
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("kleinbild "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
		printDefaults(fs)
	}
	return fs
}

// parse parses flags, allowing flags after positional arguments as users expect.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	decimalFlags(fs)
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageErr("%v", err)
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
