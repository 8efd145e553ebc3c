package cli

import (
	"context"
	"fmt"
	"io"

	"kleinbild/engine"
	"kleinbild/engine/hub"
	"kleinbild/gpu/backends"
)

// runInfo: kleinbild info -d MODEL_DIR — validates a model folder in place (files present,
// JSON readable, every safetensors header and tensor shape consistent with config.json)
// and describes it.
func runInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", stderr)
	dir := fs.String("d", "", "model folder")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageErr("-d MODEL_DIR is required")
	}
	// The CPU backend only maps the weights to check them.
	b := backends.Default()
	defer b.Close()
	rep, err := hub.Validate(context.Background(), *dir, hub.ValidateOptions{Backend: b})
	if err != nil {
		return err
	}
	info := rep.Info
	fmt.Fprintf(stdout, "model:    %s\nvariant:  %s\nweights:  %.2f GB\nsteps:    %d (default)\n", info.Dir, info.Variant(), float64(info.WeightBytes)/1e9, info.DefaultSteps)
	if avail, ok := engine.AvailableRAM(); ok {
		fmt.Fprintf(stdout, "RAM available: %.1f GB\n", float64(avail)/1e9)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(stdout, "problem:  %s\n", p)
	}
	return rep.Err()
}
