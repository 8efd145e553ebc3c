package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"kleinbild/engine"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/source"
	"kleinbild/engine/tokenizer"
	"kleinbild/gpu"
)

// modelFlags are the flags that name a model's files beside -d: a file for one component
// (GGUF or safetensors, in diffusers, BFL, ComfyUI, stable-diffusion.cpp or llama.cpp naming)
// in place of that component of whatever -d names, the variant where the files do not tell,
// and the VAE file's GroupNorm group count.
type modelFlags struct {
	dir                            *string
	transformer, textEncoder, vaeF *string
	variant                        *string
	vaeGroups                      *int
}

// addModelFlags registers --transformer, --text-encoder, --vae, --variant and --vae-groups on
// fs beside dir, the -d flag's value.
func addModelFlags(fs *flag.FlagSet, dir *string, variantFlag string) *modelFlags {
	return &modelFlags{
		dir:         dir,
		transformer: fs.String("transformer", "", "transformer file (GGUF or safetensors, any naming) in place of -d's"),
		textEncoder: fs.String("text-encoder", "", "Qwen3 text encoder file (GGUF or safetensors) in place of -d's"),
		vaeF:        fs.String("vae", "", "VAE file (BFL ae.safetensors or diffusers naming) in place of -d's"),
		variant:     fs.String(variantFlag, "", "distilled or base, for a transformer file whose name does not tell"),
		vaeGroups:   fs.Int("vae-groups", 0, "GroupNorm groups of a --vae file (default: -d's VAE config, else 32)"),
	}
}

// given reports whether a model was named at all (-d or a component file).
func (m *modelFlags) given() bool { return *m.dir != "" || !m.overrides().Empty() }

func (m *modelFlags) overrides() engine.Overrides {
	return engine.Overrides{Transformer: *m.transformer, TextEncoder: *m.textEncoder, VAE: *m.vaeF,
		VAEGroups: *m.vaeGroups, Variant: *m.variant}
}

// source opens what the flags name (engine.OpenModelSource).
func (m *modelFlags) source() (engine.Source, error) {
	if v := *m.variant; v != "" && v != "distilled" && v != "base" {
		return nil, usageErr("variant %q: want distilled or base", v)
	}
	if *m.vaeGroups < 0 {
		return nil, usageErr("--vae-groups %d: want a positive count", *m.vaeGroups)
	}
	return engine.OpenModelSource(*m.dir, m.overrides())
}

// open opens the model the flags name on b.
func (m *modelFlags) open(b gpu.Backend, opts engine.Options) (*engine.Model, error) {
	src, err := m.source()
	if err != nil {
		return nil, err
	}
	return engine.OpenSource(src, b, opts)
}

// folderOnly reports whether the flags name a diffusers folder and nothing else (the path
// the folder checks of info take): no component file, and -d neither a file nor a ComfyUI
// models folder.
func (m *modelFlags) folderOnly() bool {
	if !m.overrides().Empty() || *m.variant != "" || *m.dir == "" {
		return false
	}
	k := source.Kind(*m.dir) // a missing one: the folder checks report it
	return k != source.KindFile && k != source.KindComfy
}

// printSource writes what info reports of a model with components from single files: the
// model, each component's file, naming, storage types and bytes, notes and missing parts.
func printSource(w io.Writer, src engine.Source) {
	info := src.Info()
	fmt.Fprintf(w, "model:    %s\nvariant:  %s\nweights:  %.2f GB\nsteps:    %d (default)\n", info.Dir, info.Variant(), float64(info.WeightBytes)/1e9, info.DefaultSteps)
	files := map[engine.Component]engine.PartFile{}
	for _, f := range info.Files {
		files[f.Component] = f
	}
	for _, c := range engine.WeightComponents {
		name := strings.ReplaceAll(string(c), "_", " ")
		if f, ok := files[c]; ok {
			fmt.Fprintf(w, "%-13s %s\n%-13s %s %s naming, %s, %s\n", name+":", f.Path, "", f.Format, f.Naming, f.TypeList(), sizeText(f.Bytes))
		} else if src.WeightBytes(c) > 0 {
			fmt.Fprintf(w, "%-13s %s (%s)\n", name+":", src.Where(c), sizeText(src.WeightBytes(c)))
		}
	}
	for _, n := range info.Notes {
		fmt.Fprintf(w, "note:     %s\n", n)
	}
	for i, m := range info.Problems {
		if i == source.MaxListed && len(info.Problems) > i+1 { // an index may name thousands of shards
			fmt.Fprintf(w, "problem:  missing %d more files\n", len(info.Problems)-i)
			break
		}
		fmt.Fprintf(w, "problem:  missing %s\n", m)
	}
}

// infoSource is info for a model with components from single files: it describes each file
// and loads every component to check it (the weights are read, quantized ones dequantized).
func infoSource(m *modelFlags, deep bool, b gpu.Backend, stdout, stderr io.Writer) error {
	src, err := m.source()
	if err != nil {
		return err
	}
	printSource(stdout, src)
	if err := src.Info().MissingError(); err != nil {
		return err
	}
	for _, c := range engine.WeightComponents {
		if err := engine.CheckLoad(src, c, b); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(src.Where(c)), err)
		}
	}
	if !deep {
		return nil
	}
	return scanWeights(stdout, stderr, describeSource(src), func(ctx context.Context, progress func(engine.ScanProgress)) ([]engine.BadTensor, error) {
		return engine.ScanSource(ctx, src, progress)
	})
}

// describeSource names a model source in messages: its folder, or its component files.
func describeSource(src engine.Source) string {
	if d := src.Info().Dir; d != "" {
		return "model folder " + d
	}
	var files []string
	for _, c := range engine.WeightComponents {
		files = append(files, src.Where(c))
	}
	return "model " + strings.Join(files, ", ")
}

// encoder loads the tokenizer and text encoder of the model the flags name.
func (m *modelFlags) encoder(b gpu.Backend) (*tokenizer.Tokenizer, *qwen3.Encoder, error) {
	src, err := m.source()
	if err != nil {
		return nil, nil, err
	}
	tok, err := src.Tokenizer()
	if err != nil {
		return nil, nil, err
	}
	enc, err := engine.LoadEncoder(src, b)
	return tok, enc, err
}

// sizeText writes a byte count in GB, or MB below a gigabyte.
func sizeText(n int64) string {
	if n < 1e9 {
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// benchSource is the model bench runs: nil for a diffusers folder (bench reads it itself),
// else the Source the flags name.
func (m *modelFlags) benchSource() (engine.Source, error) {
	if m.folderOnly() {
		return nil, nil
	}
	return m.source()
}

// files lists the model files the flags name: -d's folder and the component files that
// replace its parts (for the check that an output is none of them).
func (m *modelFlags) files() []string {
	files := engine.ModelFiles(*m.dir)
	for _, f := range []string{*m.transformer, *m.textEncoder, *m.vaeF} {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}
