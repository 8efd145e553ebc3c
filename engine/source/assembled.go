package source

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FolderFiles returns the single weight files a model folder holds in place of a diffusers
// transformer or text encoder: a component folder (transformer/, text_encoder/) without
// config.json that holds exactly one .gguf or .safetensors file (hidden files left out), as
// an assembled download writes it (a GGUF transformer and text encoder next to the official
// vae/ and tokenizer/). Components without such a file are left empty.
func FolderFiles(dir string) Overrides {
	var o Overrides
	o.Transformer = componentFile(filepath.Join(dir, string(Transformer)))
	o.TextEncoder = componentFile(filepath.Join(dir, string(TextEncoder)))
	return o
}

// componentFile is the one weight file of a component folder without config.json, or "".
func componentFile(d string) string {
	if _, err := os.Lstat(filepath.Join(d, "config.json")); err == nil {
		return ""
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		return ""
	}
	var found []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || e.IsDir() {
			continue
		}
		if strings.HasSuffix(n, ".safetensors.index.json") {
			return "" // shards of a diffusers component whose config is missing
		}
		if strings.HasSuffix(n, ".gguf") || strings.HasSuffix(n, ".safetensors") {
			found = append(found, filepath.Join(d, n))
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

// openFolderParts opens a diffusers-layout folder whose transformer or text encoder is a
// single file (see FolderFiles), with the files o names taking precedence. Without
// model_index.json and scheduler/ (an assembled download need not fetch them) the variant
// comes from the transformer file and the schedule is FLUX.2's default, so neither is
// listed as missing. It returns nil, nil when the folder holds no such file, or no
// transformer at all (the folder's Info then lists what is missing).
func openFolderParts(dir string, base Source, o Overrides) (Source, error) {
	f := FolderFiles(dir)
	if f.Transformer == "" && f.TextEncoder == "" {
		return nil, nil
	}
	if _, err := base.TransformerConfig(); err != nil && f.Transformer == "" && o.Transformer == "" {
		return nil, nil // no transformer at all: the folder lists what is missing
	}
	if o.Transformer == "" {
		o.Transformer = f.Transformer
	}
	if o.TextEncoder == "" {
		o.TextEncoder = f.TextEncoder
	}
	src, err := NewParts(base, o)
	if err != nil {
		return nil, err
	}
	p := src.(*parts)
	if _, ok := p.files[Transformer]; ok && slices.ContainsFunc(p.info.Problems, func(m Problem) bool { return m.Path == "model_index.json" }) {
		p.info.Problems = slices.DeleteFunc(p.info.Problems, func(m Problem) bool {
			return m.Path == "model_index.json" || m.Path == schedulerConfig
		})
	}
	return p, nil
}
