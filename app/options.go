// Package app is Kleinbild's desktop user interface: prompt and generation settings,
// reference images, live progress, the result view and a persistent gallery of every
// generation. It builds on any fyne.App and fyne.Window and does not import
// fyne.io/fyne/v2/app, so it runs under the headless test driver; package app/desktop
// creates the real window.
package app

import (
	"kleinbild/app/form"
	"kleinbild/app/modelui"

	"fyne.io/fyne/v2"

	"kleinbild/gpu/backends"
)

// Generator produces images; *engine.Model implements it, tests use fakes.
type Generator = modelui.Generator

// OpenFunc opens a validated model (dir: its folder or file, engine.ModelInfo.Dir) for
// generation on a compute device (see modelui.OpenFunc).
type OpenFunc = modelui.OpenFunc

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
	calibrate form.CalibrateFunc
	// devices replaces backends.Devices (tests).
	devices func() []backends.Device
}
