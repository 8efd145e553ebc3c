package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// controlsDeps is what the generation controls use of the other components; UI.wire
// gives it.
type controlsDeps struct {
	// onGenerate and onCancel are the runner's Generate and Cancel; busy reports whether
	// a generation runs.
	onGenerate, onCancel func()
	busy                 func() bool
	// estimateSoon asks the fit line for a new estimate after a change of the form.
	estimateSoon func()
	model        formModel
	refs         refList
	// restoreAdapters brings an image's adapters back (Reuse settings).
	restoreAdapters func(want []imageio.Adapter) <-chan struct{}
	// shown is the gallery image in the viewer, if any.
	shown func() (gallery.Entry, bool)
}

// panelParts are the other components' pieces the side panel lays out (controls.build).
type panelParts struct {
	// refs and adapters build their sections, which end the form.
	refs, adapters func() fyne.CanvasObject
	// scrolled receives the form's scroll (the adapters pass the wheel on to it).
	scrolled func(fyne.Scrollable)
	// queueAdd sits beside Generate and queue under it (the runner's widgets).
	queueAdd, queue fyne.CanvasObject
	// wrapFit holds the fit line at a steady height (fitLine.wrap).
	wrapFit func(line *widget.Label) fyne.CanvasObject
}

// formModel is the chosen model as the form needs it (modelui.Model).
type formModel interface {
	// ModelDir is the model's path ("" when none), which remembered settings are kept for.
	ModelDir() string
	ModelInfo() engine.ModelInfo
}

// refList is the reference images as other components read and replace them (refsSection).
type refList interface {
	// RefPaths are the references' paths, in order; callers do not change it.
	RefPaths() []string
	// ReplaceRefs makes paths the references (those that can be read) and returns the
	// ones that could not be added.
	ReplaceRefs(paths []string) (missing []string)
}
