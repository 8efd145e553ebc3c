package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"kleinbild/bench"
	"kleinbild/engine"
	"kleinbild/internal/atomicfile"
	"kleinbild/randmodel"
)

// runBench: kleinbild bench [--model DIR] [--variant klein-4b] [--seed N] [--tokenizer PATH]
// [--sizes 256,512] [--steps 4] [--prompt TEXT] [--json bench.json] [--peak-reps 3]
// [--backend ID] [-q].
// Without --model it benchmarks the cached random-weight model of the variant
// (<user cache>/kleinbild/bench/<variant>), writing it first when it is missing or
// incomplete (which needs --tokenizer). Prints a table to stdout and writes the figures as
// JSON.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", stderr)
	dir := fs.String("model", "", "model folder (default: the cached random-weight model of --variant, created if missing)")
	variant := fs.String("variant", string(randmodel.Klein4B), "random model to use without --model: klein-4b, klein-9b or tiny")
	seed := fs.Uint64("seed", 0, "seed of the random model's weights (without --model)")
	tok := fs.String("tokenizer", "", "tokenizer folder (or model folder with tokenizer/) to create the random model with")
	sizes := fs.String("sizes", "256,512", "comma-separated square image sizes in pixels")
	steps := fs.Int("steps", 4, "denoising steps per generation")
	prompt := fs.String("prompt", bench.DefaultPrompt, "prompt")
	jsonPath := fs.String("json", "bench.json", "write the figures as JSON to this file (\"\" to skip)")
	peakReps := fs.Int("peak-reps", 3, "timed repetitions of each GEMM peak measurement (0 skips it)")
	quiet := fs.Bool("q", false, "quiet: print only the table and errors")
	loras := addLoRAFlags(fs)
	backend := backendFlag(fs, "")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErr("unexpected argument %q", rest[0])
	}
	var sz []int
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n%16 != 0 {
			return usageErr("--sizes %q: want comma-separated multiples of 16", *sizes)
		}
		sz = append(sz, n)
	}
	if *steps < 1 || *steps > engine.MaxSteps {
		return usageErr("--steps %d out of range 1..%d", *steps, engine.MaxSteps)
	}
	adapters, err := loras.open()
	if err != nil {
		return err
	}
	b, err := openBackend(*backend)
	if err != nil {
		return err
	}
	defer b.Close()
	logf := func(format string, a ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, format+"\n", a...)
		}
	}
	logf("Device: %s", deviceLine(*backend, b))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var created *bench.Creation
	if *dir == "" {
		v, err := randmodel.ParseVariant(*variant)
		if err != nil {
			return usageErr("%v", err)
		}
		cache, err := bench.CacheDir()
		if err != nil {
			return err
		}
		name := string(v)
		if *seed != 0 {
			name += fmt.Sprintf("-seed%d", *seed)
		}
		*dir = filepath.Join(cache, name)
		opts := randmodel.Options{Variant: v, Seed: *seed, Tokenizer: *tok}
		if why := randmodel.Check(*dir, opts); why != nil {
			if *tok == "" {
				return usageErr("the random model %s is missing or incomplete (%v): pass --tokenizer PATH to create it", *dir, why)
			}
			logf("Writing the %s random-weight model to %s", v, *dir)
			if !*quiet {
				opts.Progress = randModelProgress(stderr)
			}
			st, err := randmodel.Create(ctx, *dir, opts)
			if !*quiet {
				fmt.Fprint(stderr, "\r\033[K")
			}
			if err != nil {
				return err
			}
			created = &bench.Creation{Seconds: st.Elapsed.Seconds(), WeightBytes: st.WeightBytes, MBPerSecond: st.MBPerSecond()}
			logf("Wrote %.2f GB in %.1f s (%.0f MB/s)", float64(st.WeightBytes)/1e9, st.Elapsed.Seconds(), st.MBPerSecond())
		} else {
			logf("Using the cached random-weight model %s", *dir)
		}
	}

	reps := *peakReps
	if reps <= 0 {
		reps = -1
	}
	rep, runErr := bench.Run(ctx, bench.Options{ModelDir: *dir, Sizes: sz, Steps: *steps, Prompt: *prompt,
		PeakReps: reps, Adapters: adapters, Software: Version, Backend: b, Log: logf})
	if runErr != nil && (rep == nil || len(rep.Runs) == 0) {
		return runErr
	}
	// After a failure or an interrupt, the generations that finished are still reported.
	rep.Creation = created
	if err := rep.WriteTable(infoWriter(*jsonPath, stdout, stderr)); err != nil { // the JSON alone when it goes to stdout
		return err
	}
	if *jsonPath != "" {
		raw, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteOutput(*jsonPath, func(w *bufio.Writer) error {
			_, err := w.Write(append(raw, '\n'))
			return err
		}); err != nil {
			return err
		}
		logf("Wrote %s", *jsonPath)
	}
	return runErr
}
