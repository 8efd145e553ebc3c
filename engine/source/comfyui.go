package source

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kleinbild/weights/assemble"
)

// ComfyUI's model subfolders per component; the older names (unet, clip) are read too.
var comfyDirs = map[Component][]string{
	Transformer: {"diffusion_models", "unet"},
	TextEncoder: {"text_encoders", "clip"},
	VAE:         {"vae"},
}

// ComfyRoot returns the folder holding ComfyUI's model subfolders when dir is a ComfyUI
// models folder (dir itself, or dir/models for a ComfyUI installation), else "".
func ComfyRoot(dir string) string {
	for _, root := range []string{dir, filepath.Join(dir, "models")} {
		for _, sub := range comfyDirs[Transformer] {
			if st, err := os.Stat(filepath.Join(root, sub)); err == nil && st.IsDir() {
				return root
			}
		}
	}
	return ""
}

// Combination is one usable set of files in a ComfyUI models folder.
type Combination struct {
	Transformer, TextEncoder, VAE string
}

func (c Combination) transformer() string { return c.Transformer }
func (c Combination) textEncoder() string { return c.TextEncoder }
func (c Combination) vae() string         { return c.VAE }

// comfyFiles lists the weight files (.gguf, .safetensors) of component c under root.
func comfyFiles(root string, c Component) []string {
	var out []string
	for _, sub := range comfyDirs[c] {
		entries, _ := os.ReadDir(filepath.Join(root, sub))
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || strings.HasPrefix(n, ".") || !(strings.HasSuffix(n, ".gguf") || strings.HasSuffix(n, ".safetensors")) {
				continue
			}
			out = append(out, filepath.Join(root, sub, n))
		}
	}
	slices.Sort(out)
	return out
}

// ComfyCombinations lists the usable combinations of a ComfyUI models folder (see ComfyRoot):
// every FLUX.2 transformer file with every Qwen3 text encoder whose width its text input
// takes (three hidden states of the encoder) and every FLUX.2 VAE with its latent width.
// Files that are not such components (other models share these folders) are skipped.
// groups is the VAE files' GroupNorm group count (0: 32).
func ComfyCombinations(root string, groups int) []Combination {
	return comfyCombinations(root, groups, false)
}

// comfyCombinations is ComfyCombinations; with partial, a transformer that has no text
// encoder or no VAE that fits it is listed too, with that part empty (what a folder
// lacking one part still offers: the part can come from elsewhere).
func comfyCombinations(root string, groups int, partial bool) []Combination {
	type tr struct {
		path  string
		joint int
		latCh int
	}
	var trs []tr
	for _, f := range comfyFiles(root, Transformer) {
		c, err := NewParts(nil, Overrides{Transformer: f})
		if err != nil {
			continue
		}
		cfg, _ := c.TransformerConfig()
		trs = append(trs, tr{f, cfg.JointAttentionDim, cfg.InChannels})
	}
	encs := map[string]int{}
	for _, f := range comfyFiles(root, TextEncoder) {
		if c, err := assemble.DescribeTextEncoder(f); err == nil {
			if h, ok := c.Shapes["model.norm.weight"]; ok && len(h) == 1 {
				encs[f] = h[0]
			}
		}
	}
	vaes := map[string]int{}
	for _, f := range comfyFiles(root, VAE) {
		if c, err := NewParts(nil, Overrides{VAE: f, VAEGroups: groups}); err == nil {
			cfg, _ := c.VAEConfig()
			vaes[f] = cfg.PatchedChannels()
		}
	}
	fit := func(m map[string]int, ok func(int) bool) []string {
		var out []string
		for _, f := range slices.Sorted(maps.Keys(m)) {
			if ok(m[f]) {
				out = append(out, f)
			}
		}
		if len(out) == 0 && partial {
			out = []string{""}
		}
		return out
	}
	var out []Combination
	for _, t := range trs {
		for _, e := range fit(encs, func(w int) bool { return 3*w == t.joint }) {
			for _, v := range fit(vaes, func(ch int) bool { return ch == t.latCh }) {
				out = append(out, Combination{t.path, e, v})
			}
		}
	}
	return out
}

// OpenComfy returns the model of a ComfyUI models folder: the files o names, and for the
// others the first usable combination (by file name) that agrees with them. A GGUF
// transformer is preferred over a safetensors one (it is why most people have both).
// Info().Notes names the choice when there was one.
func OpenComfy(dir string, o Overrides) (Source, error) {
	root := ComfyRoot(dir)
	if root == "" {
		return nil, fmt.Errorf("%s is not a ComfyUI models folder (no diffusion_models/)", dir)
	}
	all := ComfyCombinations(root, o.VAEGroups)
	if len(all) == 0 {
		// No complete combination: the transformer and whatever fits it, so that only the
		// part the folder lacks is missing (and a file given for it completes the model).
		all = comfyCombinations(root, o.VAEGroups, true)
	}
	complete := slices.ContainsFunc(all, func(c Combination) bool { return c.TextEncoder != "" && c.VAE != "" })
	// A file o names from the folder picks the combinations holding it; one from elsewhere
	// only replaces that component of the combination picked from the rest.
	inAll := func(f string, part func(Combination) string) bool {
		return f != "" && slices.ContainsFunc(all, func(c Combination) bool { return part(c) == f })
	}
	tr, te, va := inAll(o.Transformer, Combination.transformer), inAll(o.TextEncoder, Combination.textEncoder), inAll(o.VAE, Combination.vae)
	combos := slices.DeleteFunc(slices.Clone(all), func(c Combination) bool {
		return (tr && c.Transformer != o.Transformer) || (te && c.TextEncoder != o.TextEncoder) || (va && c.VAE != o.VAE)
	})
	slices.SortStableFunc(combos, func(a, b Combination) int {
		ga, gb := strings.HasSuffix(a.Transformer, ".gguf"), strings.HasSuffix(b.Transformer, ".gguf")
		switch {
		case ga && !gb:
			return -1
		case gb && !ga:
			return 1
		}
		return 0
	})
	var pick Combination
	if len(combos) > 0 {
		pick = combos[0]
	}
	for _, r := range []struct {
		dst *string
		f   string
	}{{&pick.Transformer, o.Transformer}, {&pick.TextEncoder, o.TextEncoder}, {&pick.VAE, o.VAE}} {
		if r.f != "" {
			*r.dst = r.f
		}
	}
	src, err := NewParts(nil, Overrides{Transformer: pick.Transformer, TextEncoder: pick.TextEncoder, VAE: pick.VAE, VAEGroups: o.VAEGroups, Variant: o.Variant})
	if err != nil {
		return nil, err
	}
	p := src.(*parts)
	p.info.Dir = root
	if !complete && (pick.Transformer == "" || pick.TextEncoder == "" || pick.VAE == "") {
		p.info.Notes = append(p.info.Notes, fmt.Sprintf("%s holds no usable FLUX.2-klein transformer, Qwen3 text encoder and FLUX.2 VAE that fit together", root))
	} else if complete && len(all) > 1 {
		p.info.Notes = append(p.info.Notes, fmt.Sprintf("%s holds %d usable combinations; using %s, %s, %s (choose with --transformer, --text-encoder, --vae)",
			root, len(all), filepath.Base(pick.Transformer), filepath.Base(pick.TextEncoder), filepath.Base(pick.VAE)))
	}
	return p, nil
}

// OpenModelSource opens what path names as a Source: a diffusers folder (whose transformer/
// and text_encoder/ may each hold one GGUF or single file instead, see FolderFiles), a
// ComfyUI models folder, or a single transformer file (path "" : only the files o names). The files o names
// take the place of those components.
func OpenModelSource(path string, o Overrides) (Source, error) {
	if path == "" {
		if o.Empty() {
			return nil, errNoModel
		}
		return NewParts(nil, o)
	}
	switch Kind(path) {
	case KindMissing:
		_, err := os.Stat(path)
		return nil, fmt.Errorf("model: %w", cmp.Or(err, os.ErrNotExist)) // nil: it appeared meanwhile
	case KindFile:
		if o.Transformer != "" {
			return nil, fmt.Errorf("model %s is a file and --transformer names another (%s): give one", path, o.Transformer)
		}
		o.Transformer = path
		return NewParts(nil, o)
	case KindComfy:
		return OpenComfy(path, o)
	}
	base, err := OpenFolder(path)
	if err != nil {
		return nil, err
	}
	if src, err := openFolderParts(path, base, o); src != nil || err != nil {
		return src, err // a GGUF (or single-file) transformer or text encoder in the folder
	}
	if o.Empty() && o.Variant == "" {
		return base, nil
	}
	return NewParts(base, o) // files, or the variant chosen for the folder
}
