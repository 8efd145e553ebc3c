package app

import (
	"kleinbild/app/modelui"

	"image"

	"kleinbild/app/gallery"
	"kleinbild/app/inpaintui"
	"kleinbild/engine/imageio"
)

// viewerDeps is what the viewer uses of the other components; UI.wire gives it.
type viewerDeps struct {
	running     func() bool // a generation runs
	modelUsable func() bool // a model is chosen and usable (else the viewer shows the setup)
	// markBatch outlines file ("" for none) in the run's grid (runner.markBatch).
	markBatch func(file string)
	// batchStep is the image delta tiles from file in the run's grid, and whether file is
	// in the grid shown (runner.batchStep).
	batchStep func(file string, delta int) (string, bool)
	gal       galleryNav
	// The action buttons: Reuse settings (inpainting or the form), Reuse seed, Use as
	// reference, Render larger, Inpaint…
	reuseSettings func(imageio.Metadata)
	reuseSeed     func(seed uint64)
	addReference  func(path string)
	renderLarger  func()
	showInpaint   func(path string, img image.Image) *inpaintui.Mode
	// The setup page: the model dialog and a download panel.
	showModelDialog func()
	downloadPanel   func() (p *modelui.DownloadPanel, release func())
}

// galleryNav is the gallery grid as the viewer browses and deletes in it (galleryView).
type galleryNav interface {
	entryPicker
	// VisibleEntries are the images in the grid's order (search and filters apply).
	VisibleEntries() []gallery.Entry
	IndexOf(file string) int
	SelectAndScroll(file string)
	DeleteEntry(e gallery.Entry)
	DeleteShown()
}

// galleryDeps is what the gallery grid uses of the other components; UI.wire gives it.
type galleryDeps struct {
	view    shownView
	running func() bool // a generation runs
	// The cell menu's actions: Reuse settings, Render larger, Use as reference.
	restoreSettings func(imageio.Metadata)
	renderLarger    func(gallery.Entry)
	addReference    func(path string)
	// listChanged follows a change of the grid's images or order (runner.syncBatch).
	listChanged func()
}

// shownView is the viewer as the gallery shows its images there (viewer).
type shownView interface {
	ShowEntry(e gallery.Entry, full image.Image)
	ShownEntry() (gallery.Entry, bool)
	FollowsRun() bool
	Update()
	ClearShown()
	// StarChanged takes a changed star of the gallery image e.
	StarChanged(e gallery.Entry)
	CopyImage(e gallery.Entry, done func())
}
