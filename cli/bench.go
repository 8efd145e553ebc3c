package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"kleinbild/bench"
	"kleinbild/engine"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/internal/atomicfile"
	"kleinbild/randmodel"
)

// maxPeakReps bounds --peak-reps (each repetition times every GEMM shape once).
const maxPeakReps = 100

// runBench: kleinbild bench [--model DIR] [--variant klein-4b] [--seed N] [--tokenizer PATH]
// [--sizes 256,512] [--steps 4] [--prompt TEXT] [--json bench.json] [--peak-reps 3]
// [--backend ID] [--kernels [--quick]] [--profile] [-q].
// Without --model it benchmarks the cached random-weight model of the variant
// (<user cache>/kleinbild/bench/<variant>), writing it first when it is missing or
// incomplete (which needs --tokenizer). Prints a table to stdout and writes the figures as
// JSON. --kernels first measures the device (f32 FMA rate, copy bandwidth) and each kernel
// at the model's real shapes (bench.RunKernels; --quick scales the shapes down for
// software adapters), then runs one generation of the first size for the per-phase table.
// --profile times every dispatch with GPU timestamp queries and adds each op's share of a
// denoising step (and of the decoding) per run.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", stderr)
	dir := fs.String("model", "", "model folder (default: the cached random-weight model of --variant, created if missing)")
	modelArgs := addModelFlags(fs, dir, "transformer-variant")
	variant := fs.String("variant", string(randmodel.Klein4B), "random model to use without --model: klein-4b, klein-9b or tiny")
	seed := fs.Uint64("seed", 0, "seed of the random model's weights (without --model)")
	tok := fs.String("tokenizer", "", "tokenizer folder (or model folder with tokenizer/) to create the random model with")
	sizes := fs.String("sizes", "256,512", "comma-separated square image sizes in pixels")
	steps := fs.Int("steps", 4, "denoising steps per generation")
	prompt := fs.String("prompt", bench.DefaultPrompt, "prompt")
	jsonPath := fs.String("json", "bench.json", "write the figures as JSON to this file (\"\" to skip)")
	peakReps := fs.Int("peak-reps", 3, "timed repetitions of each GEMM peak measurement (0 skips it)")
	quiet := fs.Bool("q", false, "quiet: print only the table and errors")
	kernels := fs.Bool("kernels", false, "measure the device's FMA rate, copy bandwidth and every kernel at the model's shapes, then one generation")
	quick := fs.Bool("quick", false, "with --kernels: shapes scaled down (software adapters)")
	profile := fs.Bool("profile", false, "time every kernel on the GPU (timestamp queries) and print each op's share of a denoising step and of the decoding")
	loras := addLoRAFlags(fs)
	backend := backendFlag(fs, "")
	precisionArg := precisionFlag(fs)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErr("unexpected argument %q", rest[0])
	}
	sz, err := checkBenchFlags(*sizes, *peakReps, *steps)
	if err != nil {
		return err
	}
	adapters, err := loras.open()
	if err != nil {
		return err
	}
	precision, err := checkPrecision(*precisionArg)
	if err != nil {
		return err
	}
	b, err := openBackend(*backend)
	if err != nil {
		return err
	}
	defer b.Close()
	precisionNote, err := applyPrecision(b, precision)
	if err != nil {
		return err
	}
	if _, ok := b.(interface{ StartProfile() error }); *profile && !ok {
		return usageErr("--profile times GPU kernels: %s is not a GPU device ('kleinbild devices' lists them)", b.Name())
	}
	logf := func(format string, a ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, format+"\n", a...)
		}
	}
	logf("Device: %s", deviceLine(*backend, b))
	if precisionNote != "" {
		logf("Precision: %s", precisionNote)
	}
	if note := backends.UntunedNote(b); note != "" {
		logf("Note: %s", note)
	}

	ctx, stop := interruptContext()
	defer stop()
	kern, err := benchKernels(ctx, *kernels, *quick, b, infoWriter(*jsonPath, stdout, stderr), logf)
	if err != nil {
		return err
	}
	var created *bench.Creation
	if *dir == "" {
		if *dir, created, err = benchRandomModel(ctx, *variant, *seed, *tok, *quiet, stderr, logf); err != nil {
			return err
		}
	}

	reps := *peakReps
	if reps <= 0 {
		reps = -1
	}
	src, err := modelArgs.benchSource()
	if err != nil {
		return err
	}
	rep, runErr := bench.Run(ctx, bench.Options{ModelDir: *dir, Source: src, Sizes: sz, Steps: *steps, Prompt: *prompt,
		PeakReps: reps, Adapters: adapters, Software: Version, Backend: b, Log: logf, Single: *kernels, Profile: *profile})
	if runErr != nil && (rep == nil || len(rep.Runs) == 0) {
		return runErr
	}
	// After a failure or an interrupt, the generations that finished are still reported.
	rep.Creation = created
	rep.Kernels = kern
	if err := rep.WriteTable(infoWriter(*jsonPath, stdout, stderr)); err != nil { // the JSON alone when it goes to stdout
		return err
	}
	if err := writeBenchJSON(*jsonPath, rep, logf); err != nil {
		return err
	}
	return runErr
}

// checkBenchFlags parses --sizes and checks it, --peak-reps and --steps.
func checkBenchFlags(sizes string, peakReps, steps int) ([]int, error) {
	var sz []int
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || engine.CheckEngineSize(n) != nil || n > engine.MaxSidePx {
			return nil, usageErr("--sizes %q: want comma-separated multiples of %d up to %d", sizes, engine.SizeMultiple, engine.MaxSidePx)
		}
		sz = append(sz, n)
	}
	if peakReps < 0 || peakReps > maxPeakReps {
		return nil, usageErr("--peak-reps %d out of range 0..%d", peakReps, maxPeakReps)
	}
	if engine.ValidateSteps(steps) != nil {
		return nil, usageErr("--steps %d out of range 1..%d", steps, engine.MaxSteps)
	}
	return sz, nil
}

// benchRandomModel returns the folder of the cached random-weight model of variant and seed,
// writing it first (from the tokenizer tok) when it is missing or incomplete; created
// describes the writing, nil when the cached model was used.
func benchRandomModel(ctx context.Context, variant string, seed uint64, tok string, quiet bool, stderr io.Writer,
	logf func(string, ...any)) (dir string, created *bench.Creation, err error) {
	v, err := randmodel.ParseVariant(variant)
	if err != nil {
		return "", nil, usageErr("%v", err)
	}
	cache, err := bench.CacheDir()
	if err != nil {
		return "", nil, err
	}
	name := string(v)
	if seed != 0 {
		name += fmt.Sprintf("-seed%d", seed)
	}
	dir = filepath.Join(cache, name)
	opts := randmodel.Options{Variant: v, Seed: seed, Tokenizer: tok}
	why := randmodel.Check(dir, opts)
	if why == nil {
		logf("Using the cached random-weight model %s", dir)
		return dir, nil, nil
	}
	if tok == "" {
		return "", nil, usageErr("the random model %s is missing or incomplete (%v): pass --tokenizer PATH to create it", dir, why)
	}
	logf("Writing the %s random-weight model to %s", v, dir)
	if !quiet {
		opts.Progress = randModelProgress(stderr)
	}
	st, err := randmodel.Create(ctx, dir, opts)
	if !quiet {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return "", nil, err
	}
	logf("Wrote %.2f GB in %.1f s (%.0f MB/s)", float64(st.WeightBytes)/1e9, st.Elapsed.Seconds(), st.MBPerSecond())
	return dir, &bench.Creation{Seconds: st.Elapsed.Seconds(), WeightBytes: st.WeightBytes, MBPerSecond: st.MBPerSecond()}, nil
}

// writeBenchJSON writes rep as indented JSON to path with atomicfile.WriteOutput; an empty
// path writes nothing.
func writeBenchJSON(path string, rep *bench.Report, logf func(string, ...any)) error {
	if path == "" {
		return nil
	}
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteOutput(path, func(w *bufio.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	}); err != nil {
		return err
	}
	logf("Wrote %s", path)
	return nil
}

// benchKernels runs `bench --kernels` (when on) and prints its table to w; --quick without
// --kernels is a usage error.
func benchKernels(ctx context.Context, on, quick bool, b gpu.Backend, w io.Writer, logf func(string, ...any)) (*bench.KernelReport, error) {
	if !on {
		if quick {
			return nil, usageErr("--quick needs --kernels")
		}
		return nil, nil
	}
	// Each row is printed as it is measured; a row that fails shows its error.
	return bench.RunKernels(ctx, bench.KernelOptions{Backend: b, Quick: quick, Log: logf, Out: w})
}
