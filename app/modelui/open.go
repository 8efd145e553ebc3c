package modelui

import (
	"context"
	"errors"

	"kleinbild/engine"
	"kleinbild/gpu"
)

// Generator produces images; *engine.Model implements it, tests use fakes.
type Generator interface {
	Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error)
}

// OpenFunc opens a validated model (dir: its folder or file, engine.ModelInfo.Dir) for
// generation on a compute device: an ID of
// backends.Devices ("" for the automatic choice; backends.CPUID after a GPU failure).
type OpenFunc func(dir, device string) (Generator, error)

// embedCacheBytes bounds the on-disk cache of prompt embeddings (about 16 MB per prompt
// for klein-4B), which makes seed variations of one prompt skip the text encoder.
const embedCacheBytes = 512 << 20

// EngineOpener opens a model as the app read it (engine.OpenSource) on the device (see
// OpenDevice) with the prompt cache in the data folder. Each model gets its own backend,
// closed with it.
func EngineOpener(cacheDir string) SourceOpenFunc {
	return func(src engine.Source, device string) (Generator, error) {
		b, err := openDevicePrecision(device)
		if err != nil {
			return nil, err
		}
		m, err := engine.OpenSource(src, b, engine.Options{CacheDir: cacheDir, CacheBytes: embedCacheBytes})
		if err != nil {
			b.Close()
			return nil, err
		}
		return &ownedModel{Model: m, b: b}, nil
	}
}

// ownedModel is a Model that closes its backend with it.
type ownedModel struct {
	*engine.Model
	b gpu.Backend
}

// Close closes the model, then its backend.
func (m *ownedModel) Close() error {
	return errors.Join(m.Model.Close(), m.b.Close())
}
