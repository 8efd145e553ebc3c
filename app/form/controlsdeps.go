package form

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// Deps is what the generation controls use of the other components; the window's
// wiring gives it.
type Deps struct {
	// OnGenerate and OnCancel are the runner's Generate and Cancel; Busy reports whether
	// a generation runs.
	OnGenerate, OnCancel func()
	Busy                 func() bool
	// EstimateSoon asks the fit line for a new estimate after a change of the form.
	EstimateSoon func()
	Model        ChosenModel
	Refs         RefList
	// RestoreAdapters brings an image's adapters back (Reuse settings).
	RestoreAdapters func(want []imageio.Adapter) <-chan struct{}
	// Shown is the gallery image in the viewer, if any.
	Shown func() (gallery.Entry, bool)
}

// PanelParts are the other components' pieces the side panel lays out (Controls.Build).
type PanelParts struct {
	// Refs and Adapters build their sections, which end the form.
	Refs, Adapters func() fyne.CanvasObject
	// Scrolled receives the form's scroll (the adapters pass the wheel on to it).
	Scrolled func(fyne.Scrollable)
	// QueueAdd sits beside Generate and Queue under it (the runner's widgets).
	QueueAdd, Queue fyne.CanvasObject
	// WrapFit holds the fit line at a steady height (FitLine.Wrap).
	WrapFit func(line *widget.Label) fyne.CanvasObject
}

// ChosenModel is the chosen model as the form needs it (modelui.Model).
type ChosenModel interface {
	// ModelDir is the model's path ("" when none), which remembered settings are kept for.
	ModelDir() string
	ModelInfo() engine.ModelInfo
}

// RefList is the reference images as other components read and replace them (the window's references section).
type RefList interface {
	// RefPaths are the references' paths, in order; callers do not change it.
	RefPaths() []string
	// ReplaceRefs makes paths the references (those that can be read) and returns the
	// ones that could not be added.
	ReplaceRefs(paths []string) (missing []string)
}
