package cli

import (
	"fmt"
	"io"

	"kleinbild/engine"
)

// runInfo: kleinbild info -d MODEL_DIR — validates a model folder and describes it.
func runInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", stderr)
	dir := fs.String("d", "", "model folder")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageErr("-d MODEL_DIR is required")
	}
	info, err := engine.Inspect(*dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "model:    %s\nvariant:  %s\nweights:  %.2f GB\nsteps:    %d (default)\n", info.Dir, info.Variant(), float64(info.WeightBytes)/1e9, info.DefaultSteps)
	if avail, ok := engine.AvailableRAM(); ok {
		fmt.Fprintf(stdout, "RAM available: %.1f GB\n", float64(avail)/1e9)
	}
	return info.MissingError()
}
