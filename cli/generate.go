package cli

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/gpu/backends"
	"kleinbild/internal/atomicfile"
	"kleinbild/weights"
)

// runGenerate: kleinbild generate -d MODEL_DIR -p PROMPT -o OUT.png [-W 256] [-H 256] [-s STEPS]
// [-S SEED] [-g GUIDANCE] [-i REF.png ...] [--linear|--power] [--latents noise.safetensors]
// [--embeddings emb.safetensors] [--dump DIR] [--backend ID] [-v|-q], and for inpainting --image IN.png
// --mask MASK.png [--strength S] [--mask-crop PX] [--keep-unmasked=false] or --image IN.png
// --outpaint L,T,R,B (inpaint.go). Flags follow flux2.c where they overlap.
func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("generate", stderr)
	dir := fs.String("d", "", "model: a diffusers folder, a ComfyUI models folder or a transformer file")
	modelArgs := addModelFlags(fs, dir, "variant")
	prompt := fs.String("p", "", "prompt (required; - reads it from standard input)")
	negative := fs.String("n", "", "negative prompt for base models with CFG (- reads it from standard input; ignored by distilled models)")
	fs.StringVar(negative, "negative-prompt", "", "same as -n")
	out := fs.String("o", "", "output image: .png, or .jpg/.jpeg (- writes PNG to standard output)")
	quality := fs.Int("quality", 92, "JPEG quality 1..100 (for -o NAME.jpg)")
	width := fs.Int("W", 0, fmt.Sprintf("width in pixels, a multiple of %d in %d..%d (default %d, or the first reference's width)", engine.SizeMultiple, engine.MinSidePx, engine.MaxSidePx, engine.DefaultSizePx))
	height := fs.Int("H", 0, fmt.Sprintf("height in pixels, a multiple of %d in %d..%d (default %d, or the first reference's height)", engine.SizeMultiple, engine.MinSidePx, engine.MaxSidePx, engine.DefaultSizePx))
	steps := fs.Int("s", 0, fmt.Sprintf("denoising steps (default: %d distilled, %d base)", engine.DefaultStepsDistilled, engine.DefaultStepsBase))
	var seed seedFlag
	fs.Var(&seed, "S", "seed (default: random; always printed)")
	guidance := fs.Float64("g", 0, fmt.Sprintf("guidance scale for base models (default %.1f; ignored by distilled models)", engine.DefaultGuidance))
	var refs listFlag
	fs.Var(&refs, "i", "reference image (repeat for several)")
	linear := fs.Bool("linear", false, "linear sigma schedule instead of the shifted default")
	power := fs.Bool("power", false, "power sigma schedule instead of the shifted default")
	noise := noiseFlag(fs)
	latentsPath := fs.String("latents", "", "initial noise: safetensors with tensor `latents` [1,128,H/16,W/16] (sets the size when -W/-H are not given)")
	embPath := fs.String("embeddings", "", "prompt embedding: safetensors with tensor `prompt_embeds` [1,512,3·hidden]")
	dumpDir := fs.String("dump", "", "write every intermediate tensor as DIR/NAME.safetensors")
	verbose := fs.Bool("v", false, "verbose: per-phase timings")
	quiet := fs.Bool("q", false, "quiet: print only the seed and errors")
	noCache := fs.Bool("no-cache", false, "do not read or write the prompt-embedding cache")
	loras := addLoRAFlags(fs)
	backend := backendFlag(fs, " (onednn is ~2.5x faster with bf16 activations, rel-L2 ~5e-3)")
	precisionArg := precisionFlag(fs)
	inp := addInpaintFlags(fs) // --image, --mask, --strength, --mask-crop, --keep-unmasked, --outpaint (inpaint.go)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		refs = append(refs, rest...) // "-i a.png b.png" as flux2.c allows
	} else if len(rest) > 0 {
		return usageErr("unexpected argument %q", rest[0])
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := requireDirOut(modelArgs.given(), *out); err != nil {
		return err
	}
	if !set["p"] {
		return usageErr("-p PROMPT is required (-p - reads it from standard input)")
	}
	if err := readPrompts(prompt, negative, stdin); err != nil {
		return err
	}
	given := engine.Settings{Prompt: *prompt, NegativePrompt: *negative, Width: *width, Height: *height, Steps: *steps, Guidance: *guidance}
	if err := checkGenerateFlags(set, given, *linear && *power, *verbose && *quiet, stderr); err != nil {
		return err
	}
	if err := checkPromptText(*prompt, *quiet, stderr); err != nil {
		return err
	}
	if err := inp.check(set, refs, set["W"] || set["H"], *quiet, stderr); err != nil {
		return err
	}
	info := infoWriter(*out, stdout, stderr) // the seed goes to stderr when the image goes to stdout
	reads := append(modelArgs.files(), refs...)
	reads = append(reads, *latentsPath, *embPath, *inp.image, *inp.mask)
	reads = append(reads, loras.files()...)
	if err := checkGenerateOutput(*out, *quality, reads); err != nil {
		return err
	}
	if err := checkDumpDir(*dumpDir, *modelArgs.dir, reads); err != nil {
		return err
	}
	req := engine.Request{Settings: given} // the one request: the flag check's settings, then the rest
	req.References, req.Noise = refs, *noise
	inp.fill(&req)
	if req.Adapters, err = loras.open(); err != nil {
		return err
	}
	req.AdaptersPartial = *loras.partial
	req.Schedule = scheduleFlag(*linear, *power)
	if err := fillFromFiles(&req, &seed, *latentsPath, *embPath, *dumpDir); err != nil {
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
	if src, err := modelArgs.source(); err == nil {
		// The whole request, the picture's size included: the fit is that of the run.
		if b, err = fitDevice(b, deviceChosen(*backend), src, inp.fitRequest(req), stderr); err != nil {
			b.Close()
			return err
		}
	}
	defer b.Close()
	precisionNote, err := applyPrecision(b, precision)
	if err != nil {
		return err
	}
	if *verbose {
		printDevice(stderr, *backend, b)
	}
	if precisionNote != "" && !*quiet {
		fmt.Fprintf(stderr, "Precision: %s\n", precisionNote)
	}
	if note := backends.UntunedNote(b); note != "" && !*quiet {
		fmt.Fprintf(stderr, "Note: %s\n", note)
	}
	ctx, stop := interruptContext()
	defer stop()
	opts := cacheOptions(*noCache)
	t0 := time.Now()
	model, err := modelArgs.open(b, opts)
	if err != nil {
		return err
	}
	defer model.Close()
	fmt.Fprintf(info, "Seed: %d\n", req.Seed) // only once the model folder has proven usable
	if req.NegativePrompt != "" && model.Info().Distilled && !*quiet {
		fmt.Fprintln(stderr, "Note: the distilled model runs no classifier-free guidance, so the negative prompt is ignored")
	}
	if !*quiet {
		fmt.Fprintf(stderr, "Model: %s (%s), backend %s\n", model.Info().Dir, model.Info().Variant(), model.Backend().Name())
	}
	tty := isTerminal(stderr)
	progress := progressPrinter(stderr, *quiet, tty)
	sums, err := engine.HashInputs(req) // once, before the run: the metadata records what it read
	if err != nil {
		return err
	}
	res, err := model.Generate(ctx, req, progress)
	if !*quiet && tty {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	meta, err := engine.Metadata(model.Info(), req, sums, res, Version, time.Since(t0))
	if err != nil {
		return err
	}
	if precisionNote != "" {
		meta.Precision = string(precision)
	}
	if err := writeResult(*out, *dumpDir, res.Image, meta, *quality, stdout); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stderr, "Wrote %s (%d×%d, %d steps) in %.1f s\n", outName(*out), res.WidthPx, res.HeightPx, res.Steps, time.Since(t0).Seconds())
	}
	if *verbose {
		printTimings(stderr, res.Timings)
	}
	return nil
}

// fillFromFiles completes req from the flags that name files or draw a value: the seed
// (engine.RandomSeed when -S is not given), --latents, --embeddings and the --dump folder.
func fillFromFiles(req *engine.Request, seed *seedFlag, latentsPath, embPath, dumpDir string) error {
	req.Seed = seed.seed
	if !seed.given {
		req.Seed = engine.RandomSeed()
	}
	if err := readLatentsFlag(req, latentsPath); err != nil {
		return err
	}
	if err := readEmbeddingsFlag(req, embPath); err != nil {
		return err
	}
	dump, err := dumpWriter(dumpDir)
	req.Dump = dump
	return err
}

// noiseFlag defines --noise, checked as it is parsed (a bad kind is a usage error).
func noiseFlag(fs *flag.FlagSet) *string {
	kind := engine.NoiseTorch
	fs.Func("noise", fmt.Sprintf("initial noise: %s (torch-compatible, matches diffusers; depends on the size; the default) or %s (size-stable seeds: one seed keeps its composition at every size)", engine.NoiseTorch, engine.NoiseStable), func(s string) error {
		if err := engine.ValidateNoise(s); err != nil || s == "" {
			return fmt.Errorf("use %s or %s", engine.NoiseTorch, engine.NoiseStable)
		}
		kind = s
		return nil
	})
	return &kind
}

// scheduleFlag is the Request.Schedule of --linear or --power ("" for the default).
func scheduleFlag(linear, power bool) string {
	switch {
	case linear:
		return "linear"
	case power:
		return "power"
	}
	return ""
}

// checkGenerateOutput refuses, before anything runs, an output that is one of the files the
// run reads (reads), a format generate cannot write, or a JPEG quality out of range.
func checkGenerateOutput(out string, quality int, reads []string) error {
	if out != "-" {
		if err := atomicfile.CheckOutput(out, reads...); err != nil {
			return err
		}
		if _, err := outputFormat(out); err != nil {
			return usageErr("%v", err)
		}
	}
	if quality < 1 || quality > 100 {
		return usageErr("--quality %d out of range 1..100", quality)
	}
	return nil
}

// dumpWriter returns the Request.Dump that writes each intermediate tensor as
// DIR/NAME.safetensors (nil without a folder), creating the folder.
func dumpWriter(dir string) (func(name string, shape []int, data []float32) error, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dump folder: %w", err)
	}
	return func(name string, shape []int, data []float32) error {
		return weights.WriteFile(filepath.Join(dir, name+".safetensors"),
			[]weights.OutTensor{{Name: name, Shape: shape, F32: data}}, nil)
	}, nil
}

// cacheOptions are the engine options of generate: the prompt-embedding cache in the user's
// cache folder unless noCache.
func cacheOptions(noCache bool) engine.Options {
	opts := engine.Options{}
	if !noCache {
		if c, err := os.UserCacheDir(); err == nil {
			opts.CacheDir = filepath.Join(c, "kleinbild", "embeddings")
		}
	}
	return opts
}

// checkGenerateFlags checks generate's size, steps, schedule, verbosity, guidance and prompt
// flags (set: the flags given; given: their settings) before anything is loaded: every
// failure is a usage error, worded from the engine's field errors (engine.CheckSettings).
func checkGenerateFlags(set map[string]bool, given engine.Settings, linearAndPower, verboseAndQuiet bool, stderr io.Writer) error {
	for _, side := range []struct {
		flag string
		v    int
	}{{"W", given.Width}, {"H", given.Height}} {
		if set[side.flag] {
			if err := checkSide(side.flag, side.v, stderr); err != nil {
				return err
			}
		}
	}
	// An explicit 0 is no value: the rules read 0 as "the default".
	if set["s"] && given.Steps == 0 {
		return usageErr("-s 0: use %d to %d steps", engine.MinSteps, engine.MaxSteps)
	}
	if set["g"] && given.Guidance == 0 {
		return usageErr("-g: guidance 0 is out of range: use %d..%d (leave -g out for the default)", engine.MinGuidance, engine.MaxGuidance)
	}
	if linearAndPower {
		return usageErr("--linear and --power exclude each other")
	}
	if verboseAndQuiet {
		return usageErr("-v and -q exclude each other")
	}
	return flagError(engine.CheckSettings(given, true))
}

// flagError words a generate setting's rule error for the flag that gave it.
func flagError(err error) error {
	var fe *engine.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	flag := map[string]string{"steps": "s", "guidance": "g", "prompt": "p", "negative_prompt": "n", "width": "W", "height": "H"}[fe.Field]
	switch fe.Field {
	case "steps":
		return usageErr("-s %v: use %g to %g steps", fe.Value, fe.Min, fe.Max)
	case "width", "height":
		return usageErr("-%s: %v", flag, errors.Unwrap(fe.Err)) // the size rule's words, without the field's name
	}
	if flag == "" {
		return usageErr("%v", fe.Err)
	}
	return usageErr("-%s: %v", flag, fe.Err)
}

// printTimings prints the time of each phase (generate -v).
func printTimings(stderr io.Writer, timings map[engine.Phase]time.Duration) {
	for _, ph := range []engine.Phase{engine.PhaseLoading, engine.PhaseEncoding, engine.PhaseRefs, engine.PhaseDenoise, engine.PhaseDecoding} {
		if d, ok := timings[ph]; ok {
			fmt.Fprintf(stderr, "  %-10s %8.3f s\n", ph, d.Seconds())
		}
	}
}

// readLatentsFlag reads --latents into req: tensor latents (or latents_init, as --dump writes
// it) [1,128,H/16,W/16], which sets the size where -W/-H do not; its shape and values are checked.
func readLatentsFlag(req *engine.Request, path string) error {
	if path == "" {
		return nil
	}
	var shape []int
	var err error
	if req.Latents, shape, err = readTensor(path, "latents", "latents_init"); err != nil {
		return err
	}
	// [1,128,H/16,W/16]: the noise fixes the size unless -W/-H say otherwise.
	if len(shape) != 4 || shape[0] != 1 || shape[1] != latentChannels {
		return fmt.Errorf("--latents %s: tensor latents has shape %v, want [1,%d,H/16,W/16]", path, shape, latentChannels)
	}
	if req.Width == 0 {
		req.Width = shape[3] * engine.SizeMultiple
	}
	if req.Height == 0 {
		req.Height = shape[2] * engine.SizeMultiple
	}
	if want := []int{1, latentChannels, req.Height / engine.SizeMultiple, req.Width / engine.SizeMultiple}; shape[2] != want[2] || shape[3] != want[3] {
		return fmt.Errorf("--latents %s: tensor latents has shape %v, want %v for %d×%d px", path, shape, want, req.Width, req.Height)
	}
	if err := engine.CheckFinite("the latents in "+path, req.Latents); err != nil {
		return err
	}
	return nil
}

// readEmbeddingsFlag reads --embeddings into req: tensor prompt_embeds [1,512,3·hidden]
// (the width is checked against the model once it is open) with finite values.
func readEmbeddingsFlag(req *engine.Request, path string) error {
	if path == "" {
		return nil
	}
	var shape []int
	var err error
	if req.PromptEmbeds, shape, err = readTensor(path, "prompt_embeds"); err != nil {
		return err
	}
	// [1,512,3·hidden] as encode writes it (or [512,3·hidden]); the width is checked
	// against the model once it is open.
	if n := len(shape); n < 2 || n > 3 || n == 3 && shape[0] != 1 || shape[n-2] != engine.TextTokens || shape[n-1] < 1 {
		return fmt.Errorf("--embeddings %s: tensor prompt_embeds has shape %v, want [1,%d,3·hidden]", path, shape, engine.TextTokens)
	}
	if err := engine.CheckFinite("the prompt embeddings in "+path, req.PromptEmbeds); err != nil {
		return err
	}
	return nil
}

// progressPrinter prints engine progress on stderr: one line redrawn in place on a terminal,
// a line per phase and step in logs, nothing when quiet.
func progressPrinter(stderr io.Writer, quiet, tty bool) func(engine.Progress) {
	var lastLine string
	var lastPhase engine.Phase
	lastStep := -1
	return func(p engine.Progress) {
		switch {
		case quiet:
		case tty: // one line, redrawn in place
			if line := progressLine(p); line != lastLine {
				lastLine = line
				fmt.Fprintf(stderr, "\r\033[K%s", line)
			}
		case p.Phase != lastPhase || p.Step != lastStep: // logs: a line per phase and step
			lastPhase, lastStep = p.Phase, p.Step
			if p.Phase != engine.PhaseDone {
				fmt.Fprintln(stderr, progressLine(engine.Progress{Phase: p.Phase, Step: p.Step, Steps: p.Steps, Elapsed: p.Elapsed}))
			}
		}
	}
}

// writeResult writes the image to out (- is standard output, PNG) and, with a dump folder,
// its PNG there too.
func writeResult(out, dumpDir string, img *image.NRGBA, meta imageio.Metadata, quality int, stdout io.Writer) error {
	if out == "-" {
		data, err := imageio.EncodePNG(img, meta)
		if err != nil {
			return fmt.Errorf("write the image to standard output: %w", err)
		}
		if _, err := stdout.Write(data); err != nil {
			return fmt.Errorf("write the image to standard output: %w", err)
		}
	} else if err := writeImage(out, img, meta, quality); err != nil {
		return err
	}
	if dumpDir != "" {
		if err := engine.SavePNG(filepath.Join(dumpDir, "image.png"), img, meta); err != nil {
			return err
		}
	}
	return nil
}

func progressLine(p engine.Progress) string {
	switch p.Phase {
	case engine.PhaseDenoise:
		if p.Blocks == 0 {
			return fmt.Sprintf("Step %d/%d  %.0f s", p.Step, p.Steps, p.Elapsed.Seconds())
		}
		return fmt.Sprintf("Step %d/%d  block %d/%d  %.0f s", p.Step, p.Steps, p.Block, p.Blocks, p.Elapsed.Seconds())
	case engine.PhaseEncoding:
		if p.Blocks > 0 {
			return fmt.Sprintf("Encoding prompt  layer %d/%d  %.0f s", p.Block, p.Blocks, p.Elapsed.Seconds())
		}
		return "Encoding prompt"
	case engine.PhaseRefs:
		return fmt.Sprintf("Encoding reference %d/%d", p.Step, p.Steps)
	case engine.PhaseDecoding:
		return fmt.Sprintf("Decoding  %.0f s", p.Elapsed.Seconds())
	default:
		return strings.ToUpper(string(p.Phase[:1])) + string(p.Phase[1:])
	}
}

// latentChannels is the channel count of the packed latents --latents takes.
const latentChannels = 128

// readPrompts reads the prompt (-p -) or the negative prompt (-n -) from standard input;
// one of them at most can come from there.
func readPrompts(prompt, negative *string, stdin io.Reader) error {
	if *prompt == "-" && *negative == "-" {
		return usageErr("-p - and -n - both read standard input: give one of them as text")
	}
	for _, p := range []*string{prompt, negative} {
		if *p != "-" {
			continue
		}
		var err error
		if *p, err = readPrompt(stdin); err != nil {
			return err
		}
	}
	return nil
}

// readPrompt reads a prompt from r (for -p -), dropping one trailing newline.
func readPrompt(r io.Reader) (string, error) {
	raw, err := io.ReadAll(io.LimitReader(r, engine.MaxPromptBytes+2))
	if err != nil {
		return "", fmt.Errorf("reading the prompt from standard input: %w", err)
	}
	s := strings.TrimSuffix(string(raw), "\n")
	return strings.TrimSuffix(s, "\r"), nil
}

// isTerminal reports whether w is a character device (an interactive terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// outName names the output file in messages.
func outName(path string) string {
	if path == "-" {
		return "the image to standard output"
	}
	return path
}
