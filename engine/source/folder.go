package source

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/engine/vae"
	"kleinbild/weights"
)

// folder is a model folder in the Hugging Face diffusers layout (model_index.json,
// scheduler/, text_encoder/, tokenizer/, transformer/, vae/).
type folder struct {
	info ModelInfo

	once struct{ flux, enc, vae sync.Once }
	flux struct {
		c   flux2.Config
		err error
	}
	enc struct {
		c   qwen3.Config
		err error
	}
	vae struct {
		c   vae.Config
		err error
	}
}

// OpenFolder inspects a model folder in the diffusers layout (see Inspect) and returns it as
// a Source. Like Inspect it fails only when dir is unusable or model_index.json unreadable;
// Info().Problems lists absent files.
func OpenFolder(dir string) (Source, error) {
	info, err := Inspect(dir)
	if err != nil {
		return nil, err
	}
	return &folder{info: info}, nil
}

// FolderSource is the Source of a folder Inspect has already read (info from Inspect).
func FolderSource(info ModelInfo) Source { return &folder{info: info} }

func (f *folder) Info() ModelInfo { return f.info }

func (f *folder) Where(c Component) string { return filepath.Join(f.info.Dir, string(c)) }

func (f *folder) TransformerConfig() (flux2.Config, error) {
	f.once.flux.Do(func() {
		f.flux.c, f.flux.err = flux2.LoadConfig(filepath.Join(f.Where(Transformer), "config.json"))
	})
	return f.flux.c, f.flux.err
}

func (f *folder) EncoderConfig() (qwen3.Config, error) {
	f.once.enc.Do(func() {
		f.enc.c, f.enc.err = qwen3.LoadConfig(filepath.Join(f.Where(TextEncoder), "config.json"))
	})
	return f.enc.c, f.enc.err
}

func (f *folder) VAEConfig() (vae.Config, error) {
	f.once.vae.Do(func() { f.vae.c, f.vae.err = vae.LoadConfig(f.Where(VAE)) })
	return f.vae.c, f.vae.err
}

func (f *folder) Tensors(c Component) (weights.Source, error) {
	ck, err := weights.Open(f.Where(c))
	if err != nil {
		return nil, err
	}
	return ck, nil
}

// WeightBytes sums the component folder's safetensors files (hidden files left out).
func (f *folder) WeightBytes(c Component) int64 {
	entries, _ := os.ReadDir(f.Where(c))
	var n int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".safetensors") && !strings.HasPrefix(e.Name(), ".") {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
}

func (f *folder) Tokenizer() (*tokenizer.Tokenizer, error) {
	return tokenizer.Load(filepath.Join(f.info.Dir, "tokenizer"))
}
