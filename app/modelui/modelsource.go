package modelui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kleinbild/app/fserr"
	"kleinbild/app/humanize"
	"kleinbild/app/settings"
	"kleinbild/engine"
	"kleinbild/engine/lora"
	"kleinbild/engine/source"
	"kleinbild/internal/sysmem"
	"kleinbild/weights"
	"kleinbild/weights/remap"
)

// Spec is the model the user chose, as it is remembered: a path (a diffusers folder,
// a ComfyUI models folder or a single transformer file) and files that replace components
// of it, like the command line's -d, --transformer, --text-encoder and --vae. In a ComfyUI
// folder the chosen combination's files are the replacements.
type Spec struct {
	path                          string
	transformer, textEncoder, vae string
	// variant is "distilled" or "base" when the user chose it ("": as the files say).
	variant string
	// vaeGroups is the GroupNorm group count of a VAE file (0: the folder's VAE config, else
	// FLUX.2's 32), as the command line's --vae-groups; the app offers no control for it
	// (only non-FLUX.2 VAEs, like the tiny test model's, need it).
	vaeGroups int
}

// SpecFromSettings is the model remembered in s.
func SpecFromSettings(s settings.Settings) Spec {
	return Spec{path: s.ModelDir, transformer: s.ModelTransformer, textEncoder: s.ModelTextEncoder, vae: s.ModelVAE,
		variant: s.ModelVariant, vaeGroups: s.ModelVAEGroups}
}

// store writes the spec into s.
func (sp Spec) store(s *settings.Settings) {
	s.ModelDir, s.ModelTransformer, s.ModelTextEncoder, s.ModelVAE = sp.path, sp.transformer, sp.textEncoder, sp.vae
	s.ModelVariant, s.ModelVAEGroups = sp.variant, sp.vaeGroups
}

// clean makes every path of the spec absolute (see CleanDir).
func (sp Spec) clean() Spec {
	sp.path, sp.transformer, sp.textEncoder, sp.vae = CleanDir(sp.path), CleanDir(sp.transformer), CleanDir(sp.textEncoder), CleanDir(sp.vae)
	return sp
}

// Empty reports whether the spec names nothing.
func (sp Spec) Empty() bool {
	return sp.path == "" && sp.transformer == "" && sp.textEncoder == "" && sp.vae == ""
}

// key identifies the spec: two specs with the same key open the same model.
func (sp Spec) key() string {
	return strings.Join([]string{sp.path, sp.transformer, sp.textEncoder, sp.vae, sp.variant, fmt.Sprint(sp.vaeGroups)}, "\x00")
}

// overrides are the spec's replacement files as the engine takes them.
func (sp Spec) overrides() engine.Overrides {
	return engine.Overrides{Transformer: sp.transformer, TextEncoder: sp.textEncoder, VAE: sp.vae, Variant: sp.variant, VAEGroups: sp.vaeGroups}
}

// openSpec reads what sp names once, as an engine.Source (headers and configs, no
// weights); err says why the model cannot be used (nothing chosen, unreadable, or parts
// missing: info.Problems then lists them).
func openSpec(sp Spec) (engine.Source, engine.ModelInfo, error) {
	if sp.Empty() {
		return nil, engine.ModelInfo{}, ErrNoModel
	}
	path := sp.path
	if sp.transformer != "" && sp.textEncoder != "" && sp.vae != "" && source.Kind(path) == source.KindComfy {
		path = "" // a ComfyUI folder's chosen files: the folder's other files need no reading
	}
	src, err := engine.OpenModelSource(path, sp.overrides())
	if err != nil {
		return nil, engine.ModelInfo{Dir: sp.path}, cmp.Or(adapterChosen(sp), err)
	}
	info := src.Info()
	if len(info.Problems) > 0 && source.Kind(sp.path) == source.KindFolder && !holdsModelFiles(sp.path) {
		return nil, engine.ModelInfo{Dir: sp.path}, fmt.Errorf("the folder %s holds no model files: choose a folder with model_index.json, "+
			"a ComfyUI models folder, or a transformer file (.gguf or .safetensors)", filepath.Base(sp.path))
	}
	if len(info.Problems) > 0 {
		return src, info, fmt.Errorf("missing %s", source.ListFew(appMissing(info.Problems)))
	}
	return src, info, nil
}

// adapterChosen is the error for a spec whose file is a LoRA or LoKr adapter rather than a
// model part (lora.Inspect reads it as one); nil when none is.
func adapterChosen(sp Spec) error {
	for _, p := range []string{sp.path, sp.transformer, sp.textEncoder, sp.vae} {
		if p == "" || source.Kind(p) != source.KindFile {
			continue
		}
		if sum, err := lora.Inspect(p); err == nil && len(sum.Kinds) > 0 {
			return fmt.Errorf("%s is a %s adapter, not a model: add it under Adapters, and choose a model here", filepath.Base(p), sum.Kinds[0])
		}
	}
	return nil
}

// holdsModelFiles reports whether folder dir holds anything of a model: model_index.json, a
// component folder, or a .gguf or .safetensors file (true when it cannot be listed, so that
// the usual checks say why).
func holdsModelFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range entries {
		n := e.Name()
		if n == "model_index.json" || strings.HasSuffix(n, ".gguf") || strings.HasSuffix(n, ".safetensors") ||
			e.IsDir() && slices.Contains([]string{"transformer", "text_encoder", "vae", "tokenizer", "scheduler"}, n) {
			return true
		}
	}
	return false
}

// appMissing words the engine's problems with a model's files as the app says them (a
// part without a file is chosen under Replace parts, not with a flag).
func appMissing(problems []source.Problem) []string {
	out := make([]string, len(problems))
	for i, p := range problems {
		out[i] = p.String()
		if p.Kind == source.NoFile {
			out[i] = componentName(p.Component) + " (choose a file for it under Replace parts)"
		}
	}
	return out
}

// appNote is an engine note in the app's words: the command line's "(choose with …)" goes,
// and the note on a ComfyUI folder's combinations, which the dialog lists. Markdown's
// characters are escaped.
func appNote(n string) string {
	if strings.Contains(n, " usable combinations; using ") {
		return ""
	}
	if i := strings.Index(n, " (choose with --"); i >= 0 {
		n = n[:i]
	}
	return mdPlain(n)
}

// mdPlain makes s safe to show as Markdown in a RichText: Fyne's renderer splits words at
// underscores (and ignores backslash escapes), so words with Markdown's characters (file
// names like qwen3-4b-Q8_0.gguf) become code spans.
func mdPlain(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		if strings.ContainsAny(w, "_*[]<>#") {
			words[i] = "`" + strings.ReplaceAll(w, "`", "'") + "`"
		} else {
			words[i] = strings.ReplaceAll(w, "`", "'")
		}
	}
	return strings.Join(words, " ")
}

// checkSource is the structural check of a model before it is used: every component that
// is not a single file (those were checked when their headers were read) has its weights
// opened, which finds a truncated or malformed safetensors file. It reads the Source opened
// once by openSpec, nothing else.
func checkSource(ctx context.Context, src engine.Source) error {
	info := src.Info()
	for _, c := range engine.WeightComponents {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if slices.ContainsFunc(info.Files, func(f engine.PartFile) bool { return f.Component == c }) {
			continue
		}
		ts, err := src.Tensors(c)
		if err != nil {
			return errors.New(damagedFile(info.Dir, src.Where(c), err) + " is damaged or incomplete (truncated?): download the model again or choose another folder")
		}
		ts.Close()
	}
	return nil
}

// damagedFile names the file err is about (a *weights.FileError's, else where), relative
// to the model folder dir.
func damagedFile(dir, where string, err error) string {
	name := where
	if fe := (*weights.FileError)(nil); errors.As(err, &fe) {
		name = fe.Path
	}
	if rel, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(name)
}

// variantOpen reports whether the model's transformer is a single file whose name does not
// tell the distilled model from the base one (their weights have the same shapes), so the
// user has to say.
func variantOpen(src engine.Source) bool {
	if src == nil {
		return false
	}
	i := slices.IndexFunc(src.Info().Files, func(f engine.PartFile) bool { return f.Component == engine.Transformer })
	if i < 0 {
		return false
	}
	cfg, err := src.TransformerConfig()
	if err != nil {
		return false
	}
	v := remap.KleinVariant(cfg.NumAttentionHeads*cfg.AttentionHeadDim, cfg.NumLayers, cfg.NumSingleLayers, filepath.Base(src.Info().Files[i].Path))
	return v.Distilled == ""
}

// comfyChoices lists the usable combinations of a ComfyUI models folder (nil when path is
// not one, or is a diffusers folder); vaeGroups as Spec.vaeGroups.
func comfyChoices(path string, vaeGroups int) (root string, combos []engine.Combination) {
	if path == "" || source.Kind(path) != source.KindComfy {
		return "", nil
	}
	root = source.ComfyRoot(path)
	return root, source.ComfyCombinations(root, vaeGroups)
}

// preferredCombo is the combination the engine takes when none is chosen (OpenComfy): the
// first with a GGUF transformer, else the first.
func preferredCombo(combos []engine.Combination) engine.Combination {
	for _, c := range combos {
		if strings.HasSuffix(c.Transformer, ".gguf") {
			return c
		}
	}
	return combos[0]
}

// comboLabel names a ComfyUI combination by its file names.
func comboLabel(c engine.Combination) string {
	return filepath.Base(c.Transformer) + " + " + filepath.Base(c.TextEncoder) + " + " + filepath.Base(c.VAE)
}

// componentName is a component in words.
func componentName(c engine.Component) string {
	switch c {
	case engine.Transformer:
		return "Transformer"
	case engine.TextEncoder:
		return "Text encoder"
	case engine.VAE:
		return "VAE"
	}
	return string(c)
}

// sizeLine says what size of klein the model is, or that its shapes are not a published one.
func sizeLine(info engine.ModelInfo) string {
	switch info.Name {
	case "klein-4B", "klein-9B":
		return info.Name
	}
	return "size not told by the weights (not klein-4B or 9B shapes)"
}

// sourceReport describes a model read by openSpec in Markdown: what it is, each part's file,
// quant types and size, what is missing, and the memory it needs against what there is.
// open is variantOpen's answer.
func sourceReport(info engine.ModelInfo, err error, mem sysmem.Status, open bool) string {
	if errors.Is(err, ErrNoModel) {
		return "Choose a model folder (diffusers `model_index.json`, or a ComfyUI `models` folder) or a transformer file (`.gguf`, `.safetensors`)."
	}
	var b strings.Builder
	if err != nil && len(info.Problems) == 0 {
		return "**This model cannot be used:** " + mdPlain(fserr.Friendly(err))
	}
	if err != nil {
		b.WriteString("**This model is incomplete.** Missing:\n\n")
		for _, m := range appMissing(info.Problems) {
			fmt.Fprintf(&b, "* `%s`\n", m)
		}
	} else {
		if label := modelLabel(info); mdPlain(label) == label {
			fmt.Fprintf(&b, "**✓ %s** · %d steps by default", label, info.DefaultSteps)
		} else {
			fmt.Fprintf(&b, "✓ %s · %d steps by default", mdPlain(label), info.DefaultSteps)
		}
		if !info.Distilled {
			fmt.Fprintf(&b, ", guidance %.1f", info.DefaultGuidance)
		}
	}
	fmt.Fprintf(&b, "\n\nModel: %s · ", sizeLine(info))
	if open {
		fmt.Fprintf(&b, "**distilled or base cannot be told from the files: choose below** (taken as %s)", variantWord(info.Distilled))
	} else {
		b.WriteString(variantWord(info.Distilled))
	}
	if len(info.Files) > 0 {
		b.WriteString("\n\n")
		for _, f := range info.Files {
			fmt.Fprintf(&b, "* %s: `%s` (%s, %s naming) · `%s` · %s\n", componentName(f.Component), filepath.Base(f.Path),
				strings.Replace(f.Format, "gguf", "GGUF", 1), f.Naming, f.TypeList(), humanize.Bytes(uint64(max(f.Bytes, 0))))
		}
	}
	for _, n := range info.Notes {
		if n := appNote(n); n != "" {
			fmt.Fprintf(&b, "\n\n%s", n)
		}
	}
	if err != nil {
		return b.String()
	}
	fmt.Fprintf(&b, "\n\nWeights in memory: **%s**", humanize.Bytes(uint64(max(info.WeightBytes, 0))))
	switch {
	case !mem.Known:
		b.WriteString(" · memory available: unknown on this system")
	case mem.Total:
		fmt.Fprintf(&b, " · memory installed: **%s**", humanize.Bytes(mem.Bytes))
	default:
		fmt.Fprintf(&b, " · memory available now: **%s**", humanize.Bytes(mem.Bytes))
	}
	if mem.Known && uint64(max(info.WeightBytes, 0)) > mem.Bytes {
		b.WriteString("\n\n⚠ The weights are larger than the memory available: generation will be very slow " +
			"(the system keeps reading them from disk). Close other programs or use a smaller model.")
	}
	return b.String()
}

// variantWord is "distilled" or "base".
func variantWord(distilled bool) string {
	if distilled {
		return "distilled"
	}
	return "base"
}

// SourceOpenFunc opens a model read by openSpec for generation on a device (see OpenFunc).
type SourceOpenFunc func(src engine.Source, device string) (Generator, error)

// FolderOpener adapts an OpenFunc (Options.Open) to sources: it gets the model's folder or
// file.
func FolderOpener(open OpenFunc) SourceOpenFunc {
	return func(src engine.Source, device string) (Generator, error) { return open(src.Info().Dir, device) }
}

// RunModel is the model a run opens: the Source read once when it was chosen, and the key
// the opened generator is kept under.
type RunModel struct {
	Key string
	Src engine.Source
}

// RunModel is the current model for a run (UI goroutine).
func (m *Model) RunModel() RunModel { return RunModel{Key: m.spec.key(), Src: m.src} }
