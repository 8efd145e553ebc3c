package cli

import (
	"context"
	"fmt"
	"io"

	"kleinbild/download"
	"kleinbild/engine"
	"kleinbild/gpu/backends"
	"kleinbild/internal/sysmem"
)

// runInfo: kleinbild info -d MODEL [--deep] — validates a model (folder or files) in place (files
// present, JSON readable, every safetensors header and tensor shape consistent with
// config.json) and describes it. --deep also reads every weight and names the tensors
// holding NaN or infinite values (which make every image black).
func runInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", stderr)
	dir := fs.String("d", "", "model folder")
	modelArgs := addModelFlags(fs, dir, "variant")
	deep := fs.Bool("deep", false, "also read every weight tensor and report NaN or Inf values (reads the whole model)")
	loraPath := fs.String("lora", "", "describe this LoRA/LoKr adapter file (with -d: and whether it fits the model)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *loraPath != "" {
		return loraInfo(stdout, *loraPath, *dir)
	}
	if !modelArgs.given() {
		return usageErr("-d MODEL_DIR is required")
	}
	// The CPU backend only maps the weights to check them (no GPU is probed).
	b := backends.DefaultCPU()
	defer b.Close()
	if !modelArgs.folderOnly() {
		return infoSource(modelArgs, *deep, b, stdout, stderr)
	}
	rep, err := download.Validate(context.Background(), *dir, download.ValidateOptions{Backend: b})
	if err != nil {
		return err
	}
	info := rep.Info
	if rep.Err() != nil {
		// Not a usable model: no variant or steps to report, only what is wrong.
		fmt.Fprintf(stdout, "model:    %s (not usable)\n", *dir)
	} else {
		fmt.Fprintf(stdout, "model:    %s\nvariant:  %s\nweights:  %.2f GB\nsteps:    %d (default)\n", info.Dir, info.Variant(), float64(info.WeightBytes)/1e9, info.DefaultSteps)
	}
	if avail, ok := sysmem.AvailableRAM(); ok {
		fmt.Fprintf(stdout, "RAM available: %.1f GB\n", float64(avail)/1e9)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(stdout, "problem:  %s\n", p)
	}
	if err := rep.Err(); err != nil || !*deep {
		return err
	}
	return scanWeights(stdout, stderr, "model folder "+*dir, func(ctx context.Context, progress func(engine.ScanProgress)) ([]engine.BadTensor, error) {
		return engine.ScanWeights(ctx, *dir, progress)
	})
}

// scanFunc scans a model's weights for NaN and Inf (engine.ScanWeights, engine.ScanSource).
type scanFunc func(ctx context.Context, progress func(engine.ScanProgress)) ([]engine.BadTensor, error)

// scanWeights runs scan with progress on stderr and reports what it found; what names the
// model in the error.
func scanWeights(stdout, stderr io.Writer, what string, scan scanFunc) error {
	ctx, stop := interruptContext()
	defer stop()
	tty := isTerminal(stderr)
	lastPct, lastComp := -1, ""
	bad, err := scan(ctx, func(p engine.ScanProgress) {
		pct := int(100 * p.Bytes / max(p.TotalBytes, 1))
		switch {
		case tty && pct != lastPct:
			fmt.Fprintf(stderr, "\r\033[KScanning weights: %s, %d%%", p.Component, pct)
		case !tty && p.Component != lastComp:
			fmt.Fprintf(stderr, "Scanning %s weights\n", p.Component)
		}
		lastPct, lastComp = pct, p.Component
	})
	if tty {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if len(bad) == 0 {
		fmt.Fprintln(stdout, "scan:     every weight is finite (no NaN or Inf)")
		return nil
	}
	for _, b := range bad {
		fmt.Fprintf(stdout, "problem:  %s\n", b)
	}
	return fmt.Errorf("%s has %d weight tensor(s) with NaN or Inf values, the first: %s (the files are corrupt: download them again)", what, len(bad), bad[0])
}
