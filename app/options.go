// Package app is Kleinbild's desktop user interface: prompt and generation settings,
// reference images, live progress, the result view and a persistent gallery of every
// generation. It builds on any fyne.App and fyne.Window and does not import
// fyne.io/fyne/v2/app, so it runs under the headless test driver; package app/desktop
// creates the real window.
package app

import (
	"context"
	"errors"

	"fyne.io/fyne/v2"

	"kleinbild/engine"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// Generator produces images; *engine.Model implements it, tests use fakes.
type Generator interface {
	Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error)
}

// OpenFunc opens a validated model (dir: its folder or file, engine.ModelInfo.Dir) for
// generation on a compute device: an ID of
// backends.Devices ("" for the automatic choice; backends.CPUID after a GPU failure).
type OpenFunc func(dir, device string) (Generator, error)

// Options configure a UI.
type Options struct {
	// ModelDir is the model folder for this session; empty uses the remembered one.
	ModelDir string
	// DataDir holds the gallery, thumbnails and settings; empty uses settings.DefaultDataDir.
	DataDir string
	// Prompt pre-fills the prompt.
	Prompt string
	// AutoGenerate starts one generation as soon as the window is up (see UI.Automate).
	AutoGenerate bool
	// Count, when above 0, sets the images per run before the automatic generation.
	Count int
	// ScreenshotPath, when set, receives a PNG capture of the window after the automatic
	// generation has finished and its result is shown.
	ScreenshotPath string
	// QuitAfter quits the application once the automatic run is over.
	QuitAfter bool
	// Backend is the compute device for this session (an ID of backends.Devices, or
	// "webgpu" for the best adapter), overriding the one chosen in the settings until the
	// user chooses another; "" uses the settings' choice (automatic by default).
	Backend string
	// Version is the software version written into the images' metadata.
	Version string
	// Open opens a model on a device; nil opens it with the engine (engine.OpenSource).
	Open OpenFunc
	// ScreenSize is the usable size of the screen the window is on (zero when unknown; nil
	// for none): second windows are sized to fit it (UI goroutine).
	ScreenSize func() fyne.Size

	// calibrate replaces the kernel-speed calibration (tests).
	calibrate calibrateFunc
	// devices replaces backends.Devices (tests).
	devices func() []backends.Device
}

// embedCacheBytes bounds the on-disk cache of prompt embeddings (about 16 MB per prompt
// for klein-4B), which makes seed variations of one prompt skip the text encoder.
const embedCacheBytes = 512 << 20

// engineOpener opens a model as the app read it (engine.OpenSource) on the device (see
// openDevice) with the prompt cache in the data folder. Each model gets its own backend,
// closed with it.
func engineOpener(cacheDir string) sourceOpenFunc {
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
