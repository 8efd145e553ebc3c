package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"kleinbild/engine"
	"kleinbild/engine/lora"
	"kleinbild/engine/qwen3"
	"kleinbild/gpu/backends"
	"kleinbild/randmodel"
)

// loraFlags are --lora FILE[:STRENGTH] (repeatable) and --lora-partial, shared by generate,
// encode and bench.
type loraFlags struct {
	specs   listFlag
	partial *bool
}

func addLoRAFlags(fs *flag.FlagSet) *loraFlags {
	l := &loraFlags{}
	fs.Var(&l.specs, "lora", fmt.Sprintf("LoRA/LoKr adapter FILE[:STRENGTH] (strength −%d..%d, default 1; repeat for several)", lora.MaxStrength, lora.MaxStrength))
	l.partial = fs.Bool("lora-partial", false, "accept adapters with keys that match nothing in the model (they are listed otherwise and refused)")
	return l
}

// parseLoRASpec splits FILE[:STRENGTH]; a suffix after the last ':' that is not a number
// belongs to the file name. One that reads as a number is the strength, whatever its size:
// outside ±lora.MaxStrength (1e308, inf, nan) it is an error, not part of the name.
func parseLoRASpec(spec string) (path string, strength float32, err error) {
	path, strength = spec, 1
	if i := strings.LastIndexByte(spec, ':'); i > 0 {
		if v, perr := strconv.ParseFloat(spec[i+1:], 64); perr == nil || errors.Is(perr, strconv.ErrRange) {
			if !(math.Abs(v) <= lora.MaxStrength) {
				return "", 0, usageErr("--lora %q: strength %s is outside −%d..%d", spec, spec[i+1:], lora.MaxStrength, lora.MaxStrength)
			}
			path, strength = spec[:i], float32(v)
		}
	}
	if path == "" {
		return "", 0, usageErr("--lora %q: no file", spec)
	}
	return path, strength, nil
}

// open reads every adapter given; errors name the file.
func (l *loraFlags) open() (lora.Stack, error) {
	var s lora.Stack
	for _, spec := range l.specs {
		path, strength, err := parseLoRASpec(spec)
		if err != nil {
			return nil, err
		}
		a, err := lora.Open(path)
		if err != nil {
			return nil, err
		}
		s = append(s, lora.Weighted{Adapter: a, Strength: strength})
	}
	if err := s.Check(); err != nil {
		return nil, usageErr("--lora: %v", err)
	}
	return s, nil
}

// printLoRAInfo describes an adapter file: format, kinds, ranks, targeted layers, the model
// it seems made for, metadata and keys that match nothing; with model set, whether it fits.
func printLoRAInfo(w io.Writer, path string, model *engine.Model) error {
	a, err := lora.Open(path)
	if err != nil {
		return err
	}
	s := a.Summary()
	fmt.Fprintf(w, "adapter:  %s\nformat:   %v\n", path, s.Format)
	kinds := make([]string, len(s.Kinds))
	for i, k := range s.Kinds {
		kinds[i] = k.String()
	}
	fmt.Fprintf(w, "kind:     %s\n", strings.Join(kinds, ", "))
	if len(s.Ranks) > 0 {
		fmt.Fprintf(w, "rank:     %s\n", strings.Trim(fmt.Sprint(s.Ranks), "[]"))
	}
	fmt.Fprintf(w, "layers:   %d transformer (%d double, %d single blocks), %d text encoder\n", s.Transformer, s.DoubleBlocks, s.Singles, s.TextEnc)
	fits := s.Fits
	if fits == "" {
		fits = "unknown"
	}
	fmt.Fprintf(w, "fits:     %s\n", fits)
	for _, kv := range [][2]string{{"name", s.Name}, {"base", s.BaseModel}, {"triggers", strings.Join(s.Triggers, ", ")}} {
		if kv[1] != "" {
			fmt.Fprintf(w, "%-9s %s\n", kv[0]+":", kv[1])
		}
	}
	fmt.Fprintf(w, "size:     %.1f MB of factors\n", float64(a.Bytes())/1e6)
	if n := len(a.Unmatched); n > 0 {
		fmt.Fprintf(w, "unmatched: %d keys: %s\n", n, strings.Join(a.Unmatched[:min(n, 5)], ", "))
	}
	if model != nil {
		if err := model.CheckAdapters(lora.Stack{{Adapter: a, Strength: 1}}, false); err != nil {
			fmt.Fprintf(w, "model:    does not fit %s: %v\n", model.Info().Dir, err)
		} else {
			fmt.Fprintf(w, "model:    fits %s\n", model.Info().Dir)
		}
	}
	return nil
}

// randLoRAFlags are randmodel's flags for writing a random adapter instead of a model.
type randLoRAFlags struct {
	out    *string
	rank   *int
	alpha  *float64
	format *string
	force  *bool
}

func addRandLoRAFlags(fs *flag.FlagSet) *randLoRAFlags {
	return &randLoRAFlags{
		out:    fs.String("lora", "", "write a random adapter FILE.safetensors for the variant's transformer (every linear layer) instead of a model"),
		rank:   fs.Int("lora-rank", 32, "rank of the random adapter"),
		alpha:  fs.Float64("lora-alpha", 0, "alpha of the random adapter (0: the rank, scale 1)"),
		format: fs.String("lora-format", "diffusers", "format of the random adapter: diffusers, bfl, kohya or lycoris (LoKr)"),
		force:  fs.Bool("force", false, "with --lora: replace an existing file"),
	}
}

// write writes the random adapter when --lora was given and reports whether it did.
func (r *randLoRAFlags) write(w io.Writer, v randmodel.Variant, seed uint64, quiet bool) (bool, error) {
	if *r.out == "" {
		return false, nil
	}
	formats := map[string]lora.Format{"diffusers": lora.FormatDiffusers, "bfl": lora.FormatBFL, "kohya": lora.FormatKohya, "lycoris": lora.FormatLyCORIS}
	f, ok := formats[strings.ToLower(*r.format)]
	if !ok {
		return true, usageErr("--lora-format %q: use diffusers, bfl, kohya or lycoris", *r.format)
	}
	if err := randmodel.CheckAlpha(*r.alpha); err != nil {
		return true, usageErr("--lora-alpha: %v", err)
	}
	if err := checkNewFile(*r.out, *r.force); err != nil {
		return true, err
	}
	opts := lora.RandomOptions{Rank: *r.rank, Alpha: float32(*r.alpha), Format: f, Seed: seed}
	if err := randmodel.WriteAdapter(*r.out, v, opts); err != nil {
		return true, err
	}
	if !quiet {
		fmt.Fprintf(w, "Wrote %s (%v, rank %d, for %s, seed %d)\n", *r.out, f, *r.rank, v, seed)
	}
	return true, nil
}

// checkNewFile refuses to write path where something already is, a folder, device, FIFO or
// other special file always (through a symlink too), a regular file unless force: everywhere
// else --lora names an input, so `randmodel --lora` given a real adapter or a model's weights
// must not replace them.
func checkNewFile(path string, force bool) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--lora %s: %w", path, err)
	case !st.Mode().IsRegular():
		return usageErr("--lora %s: not a regular file; randmodel writes a new adapter file there", path)
	case !force:
		return usageErr("--lora %s already exists; randmodel --lora writes a new random adapter (--force replaces the file)", path)
	}
	return nil
}

// loraInfo is `kleinbild info --lora FILE [-d MODEL]`.
func loraInfo(w io.Writer, path, dir string) error {
	var model *engine.Model
	if dir != "" {
		b := backends.DefaultCPU() // only the model's shapes and keys are needed
		defer b.Close()
		m, err := engine.Open(dir, b, engine.Options{})
		if err != nil {
			return err
		}
		defer m.Close()
		model = m
	}
	return printLoRAInfo(w, path, model)
}

// setEncoderAdapters applies the text-encoder terms of --lora to enc (encode): keys that
// match nothing are refused unless --lora-partial; an adapter without text-encoder layers is
// noted on stderr.
func setEncoderAdapters(enc *qwen3.Encoder, l *loraFlags, stderr io.Writer) error {
	s, err := l.open()
	if err != nil || len(s) == 0 {
		return err
	}
	for _, w := range s {
		if len(w.Adapter.Unmatched) > 0 && !*l.partial {
			return &lora.FitError{Path: w.Adapter.Path, Unmatched: w.Adapter.Unmatched}
		}
		if w.Adapter.Summary().TextEnc == 0 {
			fmt.Fprintf(stderr, "note: %s changes no text-encoder layer: the embedding is the same without it\n", w.Adapter.Path)
		}
	}
	return enc.SetAdapters(s)
}

// files lists the adapter files given (for the check that an output is none of them).
func (l *loraFlags) files() []string {
	var paths []string
	for _, spec := range l.specs {
		if path, _, err := parseLoRASpec(spec); err == nil {
			paths = append(paths, path)
		}
	}
	return paths
}
