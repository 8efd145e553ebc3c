// Package app is Kleinbild's desktop user interface: prompt and generation settings,
// reference images, live progress, the result view and a persistent gallery of every
// generation. It builds on any fyne.App and fyne.Window and does not import
// fyne.io/fyne/v2/app, so it runs under the headless test driver; package app/desktop
// creates the real window.
package app

import (
	"context"

	"kleinbild/engine"
	"kleinbild/gpu"
)

// Generator produces images; *engine.Model implements it, tests use fakes.
type Generator interface {
	Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error)
}

// OpenFunc opens a validated model folder for generation.
type OpenFunc func(dir string) (Generator, error)

// Options configure a UI.
type Options struct {
	// ModelDir is the model folder for this session; empty uses the remembered one.
	ModelDir string
	// DataDir holds the gallery, thumbnails and settings; empty uses DefaultDataDir.
	DataDir string
	// Prompt pre-fills the prompt.
	Prompt string
	// AutoGenerate starts one generation as soon as the window is up (see UI.Automate).
	AutoGenerate bool
	// ScreenshotPath, when set, receives a PNG capture of the window after the automatic
	// generation has finished and its result is shown.
	ScreenshotPath string
	// QuitAfter quits the application once the automatic run is over.
	QuitAfter bool
	// Open opens a model folder; nil opens it with engine.Open on gpu.Default.
	Open OpenFunc

	// calibrate replaces the kernel-speed calibration (tests).
	calibrate calibrateFunc
}

// embedCacheBytes bounds the on-disk cache of prompt embeddings (about 16 MB per prompt
// for klein-4B), which makes seed variations of one prompt skip the text encoder.
const embedCacheBytes = 512 << 20

// engineOpener is the default OpenFunc: engine.Open on gpu.Default with the prompt cache
// in the data folder.
func engineOpener(cacheDir string) OpenFunc {
	return func(dir string) (Generator, error) {
		return engine.Open(dir, gpu.Default(), engine.Options{CacheDir: cacheDir, CacheBytes: embedCacheBytes})
	}
}
