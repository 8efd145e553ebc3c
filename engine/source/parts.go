package source

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/engine/tokenizer/bundled"
	"kleinbild/engine/vae"
	"kleinbild/weights"
	"kleinbild/weights/assemble"
	"kleinbild/weights/remap"
)

// Overrides name single files that take the place of components of a model: a GGUF or
// safetensors file in any naming assemble reads (diffusers, Black Forest Labs, ComfyUI,
// stable-diffusion.cpp, llama.cpp).
type Overrides struct {
	Transformer, TextEncoder, VAE string
	// VAEGroups is the GroupNorm group count of a VAE file, which its weights do not record
	// (0: the base model's VAE config when there is one, else FLUX.2's 32).
	VAEGroups int
	// Variant is "distilled" or "base": the choice for a transformer file whose name and
	// metadata do not tell ("": told by the files, else the base model's, else distilled,
	// and Info().Notes says it was assumed).
	Variant string
}

// Empty reports whether no component is overridden.
func (o Overrides) Empty() bool { return o.Transformer == "" && o.TextEncoder == "" && o.VAE == "" }

// PartFile describes a component read from one file: for info output and image metadata.
type PartFile struct {
	Component Component
	Path      string
	Format    string         // "gguf" or "safetensors"
	Naming    string         // e.g. "BFL", "llama.cpp", "diffusers"
	Types     map[string]int // storage type ("Q8_0", "BF16", ...) -> tensor count
	Bytes     int64
}

// TypeList is the storage types, most tensors first, e.g. "Q8_0 x21, F16 x18".
func (p PartFile) TypeList() string {
	names := slices.Sorted(maps.Keys(p.Types))
	slices.SortStableFunc(names, func(a, b string) int { return p.Types[b] - p.Types[a] })
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%s x%d", n, p.Types[n])
	}
	return strings.Join(out, ", ")
}

// parts is a model whose components come from single files, each optionally in place of a
// component of a base Source (nil: every component is a file; the tokenizer is then the
// bundled one and the scheduler FLUX.2's default).
type parts struct {
	base  Source
	info  ModelInfo
	files map[Component]*assemble.Component // described only: Checkpoint nil
	flux  flux2.Config
	enc   qwen3.Config
	vae   vae.Config
	// vaeGroups is the GroupNorm group count the VAE file is opened with.
	vaeGroups int
}

// componentFlag is the flag that supplies each component, for messages.
var componentFlag = map[Component]string{Transformer: "--transformer", TextEncoder: "--text-encoder", VAE: "--vae"}

// NewParts returns base (nil: none) with the components o names read from their files. Each
// file's header is read now (nothing is dequantized); its weights are read by Tensors.
// With no base, a component o does not name is listed in Info().Problems.
func NewParts(base Source, o Overrides) (Source, error) {
	p := &parts{base: base, files: map[Component]*assemble.Component{}}
	if base != nil {
		p.info = base.Info()
		p.info.Problems = slices.Clone(p.info.Problems)
		p.info.Files = slices.Clone(p.info.Files)
		p.info.Notes = slices.Clone(p.info.Notes)
	} else {
		p.info = ModelInfo{Name: "custom", Distilled: true}
	}
	if err := p.describe(o); err != nil {
		for _, c := range p.files {
			c.Close()
		}
		return nil, err
	}
	p.finishInfo(o)
	return p, nil
}

// describe reads the headers of the files o names and parses the configs they give.
func (p *parts) describe(o Overrides) error {
	var err error
	if o.Transformer != "" {
		c, err := assemble.DescribeTransformer(o.Transformer)
		if err != nil {
			return fmt.Errorf("transformer file: %w", err)
		}
		p.files[Transformer] = c
		if p.flux, err = flux2.ParseConfig(c.Config); err != nil {
			return fmt.Errorf("transformer file %s: %w", o.Transformer, err)
		}
	} else if p.base != nil {
		if p.flux, err = p.base.TransformerConfig(); err != nil {
			return err
		}
	}
	if o.TextEncoder != "" {
		c, err := assemble.DescribeTextEncoder(o.TextEncoder)
		if err != nil {
			return fmt.Errorf("text encoder file: %w", err)
		}
		p.files[TextEncoder] = c
		if p.enc, err = qwen3.ParseConfig(c.Config); err != nil {
			return fmt.Errorf("text encoder file %s: %w", o.TextEncoder, err)
		}
	}
	if o.VAE != "" {
		p.vaeGroups = o.VAEGroups
		if p.vaeGroups == 0 && p.base != nil {
			if bc, err := p.base.VAEConfig(); err == nil {
				p.vaeGroups = bc.NormNumGroups
			}
		}
		c, err := assemble.DescribeVAE(o.VAE, p.vaeGroups)
		if err != nil {
			return fmt.Errorf("VAE file: %w", err)
		}
		p.files[VAE] = c
		if p.vae, err = vae.ParseConfig(c.Config); err != nil {
			return fmt.Errorf("VAE file %s: %w", o.VAE, err)
		}
	}
	return nil
}

// finishInfo completes the ModelInfo: files, missing parts, sizes, variant.
func (p *parts) finishInfo(o Overrides) {
	info := &p.info
	if p.base == nil {
		info.Dir = firstNonEmpty(o.Transformer, o.TextEncoder, o.VAE)
	}
	info.WeightBytes = 0
	for _, c := range WeightComponents {
		f, ok := p.files[c]
		if ok {
			info.Problems = slices.DeleteFunc(info.Problems, func(m Problem) bool { return m.In(string(c)) })
			info.Files = append(info.Files, PartFile{Component: c, Path: f.Path, Format: f.Format, Naming: f.Naming.String(), Types: f.Types, Bytes: f.Bytes()})
		} else if p.base == nil {
			info.Problems = append(info.Problems, Problem{Path: string(c), Component: c, Kind: NoFile})
		}
		info.WeightBytes += p.WeightBytes(c)
	}
	if f, ok := p.files[Transformer]; ok {
		p.transformerVariant(f, o.Variant)
	} else if o.Variant != "" {
		info.Distilled = o.Variant == "distilled"
	}
	info.DefaultSteps, info.DefaultGuidance = StepsFor(info.Distilled), GuidanceFor(info.Distilled)
}

// transformerVariant sets Name and Distilled from a transformer file (see remap.KleinVariant).
func (p *parts) transformerVariant(f *assemble.Component, choice string) {
	hidden := p.flux.NumAttentionHeads * p.flux.AttentionHeadDim
	v := remap.KleinVariant(hidden, p.flux.NumLayers, p.flux.NumSingleLayers, filepath.Base(f.Path))
	p.info.Name = "custom"
	if v.Size != "" {
		p.info.Name = "klein-" + v.Size
	}
	switch {
	case choice != "":
		p.info.Distilled = choice == "distilled"
	case v.Distilled != "":
		p.info.Distilled = v.Distilled == "distilled"
	case p.base != nil:
		p.info.Notes = append(p.info.Notes, fmt.Sprintf("%s does not say whether it is distilled or base: taken as %s, like the model it replaces (choose with --variant)", filepath.Base(f.Path), p.info.Variant()))
	default:
		p.info.Distilled = true
		p.info.Notes = append(p.info.Notes, fmt.Sprintf("%s does not say whether it is distilled or base: taken as distilled (choose with --variant)", filepath.Base(f.Path)))
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func (p *parts) Info() ModelInfo { return p.info }

func (p *parts) Where(c Component) string {
	if f, ok := p.files[c]; ok {
		return f.Path
	}
	if p.base != nil {
		return p.base.Where(c)
	}
	return string(c)
}

// errNoPart is the error of a component that neither a file nor a base supplies.
func errNoPart(c Component) error {
	return fmt.Errorf("no %s: give a file with %s", strings.ReplaceAll(string(c), "_", " "), componentFlag[c])
}

func (p *parts) TransformerConfig() (flux2.Config, error) {
	if _, ok := p.files[Transformer]; !ok && p.base == nil {
		return flux2.Config{}, errNoPart(Transformer)
	}
	return p.flux, nil
}

func (p *parts) EncoderConfig() (qwen3.Config, error) {
	if _, ok := p.files[TextEncoder]; ok {
		return p.enc, nil
	}
	if p.base == nil {
		return qwen3.Config{}, errNoPart(TextEncoder)
	}
	return p.base.EncoderConfig()
}

func (p *parts) VAEConfig() (vae.Config, error) {
	if _, ok := p.files[VAE]; ok {
		return p.vae, nil
	}
	if p.base == nil {
		return vae.Config{}, errNoPart(VAE)
	}
	return p.base.VAEConfig()
}

// Tensors reads component c's file (dequantizing quantized tensors) or opens the base's.
func (p *parts) Tensors(c Component) (weights.Source, error) {
	f, ok := p.files[c]
	if !ok {
		if p.base == nil {
			return nil, errNoPart(c)
		}
		return p.base.Tensors(c)
	}
	var a *assemble.Component
	var err error
	switch c {
	case Transformer:
		a, err = assemble.OpenTransformer(f.Path)
	case TextEncoder:
		a, err = assemble.OpenTextEncoder(f.Path, p.EncoderLayers()-1)
	case VAE:
		a, err = assemble.OpenVAE(f.Path, p.vaeGroups)
	default:
		return nil, fmt.Errorf("engine: component %q has no weights", c)
	}
	if err != nil {
		return nil, err
	}
	return a.Checkpoint, nil
}

// EncoderLayers is the number of decoder layers read from a text encoder file: those the
// pipeline runs (up to its deepest hidden state, 27 of Qwen3-4B's 36); 0 (all) for the base's.
func (p *parts) EncoderLayers() int {
	if _, ok := p.files[TextEncoder]; !ok {
		return 0
	}
	return min(slices.Max(qwen3.DefaultLayers), p.enc.NumHiddenLayers)
}

// WeightBytes is the memory a file's weights take once loaded (assemble's LoadedBytes: a
// GGUF's quantized Linear weights count packed, its other quantized tensors four bytes per
// weight), or the base's.
func (p *parts) WeightBytes(c Component) int64 {
	if f, ok := p.files[c]; ok {
		return f.LoadedBytes()
	}
	if p.base != nil {
		return p.base.WeightBytes(c)
	}
	return 0
}

// Tokenizer is the base model's tokenizer, or the Qwen3 tokenizer bundled in the binary.
func (p *parts) Tokenizer() (*tokenizer.Tokenizer, error) {
	if p.base != nil && !slices.ContainsFunc(p.info.Problems, func(m Problem) bool { return m.In("tokenizer") }) {
		return p.base.Tokenizer()
	}
	return BundledTokenizer()
}

// BundledTokenizer loads the Qwen3 tokenizer shipped inside the binary.
func BundledTokenizer() (*tokenizer.Tokenizer, error) {
	data, err := bundled.TokenizerJSON()
	if err != nil {
		return nil, err
	}
	return tokenizer.Parse(data, bundled.TokenizerConfigJSON())
}

var errNoModel = errors.New("no model: give a model folder or file (-d), or component files")
