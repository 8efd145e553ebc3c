package cli

import (
	"flag"
	"fmt"
	"io"
	"time"

	"kleinbild/randmodel"
)

// runRandModel: kleinbild randmodel -o DIR [--variant klein-4b|klein-9b|tiny] [--seed N]
// [--base] [--gguf] [--gguf-mix Q8_0|Q4_K_M] --tokenizer PATH [-q]. Writes a deterministic
// random-weight model folder in the real layout (for benchmarks; the real weights are not needed).
func runRandModel(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("randmodel", stderr)
	out := fs.String("o", "", "model folder to write (absent, empty, or written by randmodel before)")
	variant := fs.String("variant", string(randmodel.Klein4B), "model size: klein-4b (~16 GB), klein-9b (~35 GB) or tiny (the golden tiny configs)")
	seed := fs.Uint64("seed", 0, "seed of the random weights (same seed, same bytes)")
	base := fs.Bool("base", false, "write the undistilled (base) variant's model_index.json")
	tok := fs.String("tokenizer", "", "Qwen3 tokenizer folder with tokenizer.json (e.g. ../shared/golden/tokenizer), or a model folder with tokenizer/")
	quiet := fs.Bool("q", false, "quiet: print only errors")
	ggufMix := fs.Bool("gguf", false, "also write the transformer and text encoder as GGUF files of --gguf-mix under DIR/gguf (for --transformer/--text-encoder); a complete folder of the same variant and seed is kept as it is")
	mixName := fs.String("gguf-mix", string(randmodel.MixQ8_0), "GGUF mix for --gguf (implies it): Q8_0 or Q4_K_M (files gguf/transformer-MIX.gguf, gguf/text_encoder-MIX.gguf)")
	randLoRA := addRandLoRAFlags(fs)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErr("unexpected argument %q", rest[0])
	}
	// From here on SIGINT and SIGTERM cancel the work and let a file being written finish
	// (--lora's adapter included).
	ctx, stop := interruptContext()
	defer stop()
	if *randLoRA.out != "" {
		v, err := randmodel.ParseVariant(*variant)
		if err != nil {
			return usageErr("%v", err)
		}
		_, err = randLoRA.write(stdout, v, *seed, *quiet)
		return err
	}
	if *out == "" || *tok == "" {
		return usageErr("-o DIR and --tokenizer PATH are required")
	}
	v, err := randmodel.ParseVariant(*variant)
	if err != nil {
		return usageErr("%v", err)
	}
	mix, err := randmodel.ParseMix(*mixName)
	if err != nil {
		return usageErr("%v", err)
	}
	fs.Visit(func(f *flag.Flag) { *ggufMix = *ggufMix || f.Name == "gguf-mix" })
	opts := randmodel.Options{Variant: v, Seed: *seed, Base: *base, Tokenizer: *tok}
	if !*quiet {
		opts.Progress = randModelProgress(stderr)
	}
	var st randmodel.Stats
	if *ggufMix && randmodel.Check(*out, opts) == nil {
		if err := randmodel.WriteGGUFMix(ctx, *out, mix); err != nil {
			return err
		}
		if !*quiet {
			fmt.Fprintf(stdout, "Kept %s (complete), wrote its %s GGUF files\n", *out, mix)
		}
		return nil
	}
	st, err = randmodel.Create(ctx, *out, opts)
	if !*quiet {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if *ggufMix {
		if err := randmodel.WriteGGUFMix(ctx, *out, mix); err != nil {
			return err
		}
	}
	if !*quiet {
		fmt.Fprintf(stdout, "Wrote %s (%s, seed %d): %d tensors in %d files, %.2f GB in %.1f s (%.0f MB/s)\n",
			*out, v, *seed, st.Tensors, st.Files, float64(st.WeightBytes)/1e9, st.Elapsed.Seconds(), st.MBPerSecond())
	}
	return nil
}

// randModelProgress returns a progress callback printing one status line, at most 4 times a
// second.
func randModelProgress(w io.Writer) func(file string, done, total int64) {
	start := time.Now()
	var last time.Time
	return func(file string, done, total int64) {
		now := time.Now()
		if now.Sub(last) < 250*time.Millisecond && done < total {
			return
		}
		last = now
		rate := float64(done) / 1e6 / max(now.Sub(start).Seconds(), 1e-9)
		fmt.Fprintf(w, "\r\033[K%s  %5.1f%%  %.2f / %.2f GB  %.0f MB/s", file, 100*float64(done)/float64(max(total, 1)),
			float64(done)/1e9, float64(total)/1e9, rate)
	}
}
