// Command kleinbild generates images locally with FLUX.2-klein. With no arguments it opens
// the desktop app; subcommands serve scripting, tests and benchmarks (kleinbild help).
package main

import (
	"fmt"
	"os"

	"kleinbild/app/cli"
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
