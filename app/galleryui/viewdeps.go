package galleryui

import (
	"kleinbild/app/modelui"

	"image"

	"kleinbild/app/gallery"
	"kleinbild/app/inpaintui"
	"kleinbild/app/shell"
	"kleinbild/engine/imageio"
)

// ViewerDeps is what the viewer uses of the other components; UI.wire gives it.
type ViewerDeps struct {
	Running     func() bool // a generation runs
	ModelUsable func() bool // a model is chosen and usable (else the viewer shows the setup)
	// MarkBatch outlines file ("" for none) in the run's grid (the runner's markBatch).
	MarkBatch func(file string)
	// BatchStep is the image delta tiles from file in the run's grid, and whether file is
	// in the grid shown (the runner's batchStep).
	BatchStep func(file string, delta int) (string, bool)
	Gal       GalleryNav
	// The action buttons: Reuse settings (inpainting or the form), Reuse seed, Use as
	// reference, Render larger, Inpaint…
	ReuseSettings func(imageio.Metadata)
	ReuseSeed     func(seed uint64)
	AddReference  func(path string)
	RenderLarger  func()
	ShowInpaint   func(path string, img image.Image) *inpaintui.Mode
	// The setup page: the model dialog and a download panel.
	ShowModelDialog func()
	DownloadPanel   func() (p *modelui.DownloadPanel, release func())
	// SaveAs opens the file chooser that saves a copy of the image file src, named name,
	// in the folder start returns; saved runs with the path written.
	SaveAs func(title, src, name string, start func() string, saved func(path string))
}

// NewViewer is the viewer of the shell sh, using deps; Build makes its widgets.
func NewViewer(sh *shell.Shell, deps ViewerDeps) Viewer {
	return Viewer{sh: sh, ViewerDeps: deps}
}

// NewView is the gallery grid of the shell sh, using deps; Build makes its widgets.
func NewView(sh *shell.Shell, deps GalleryDeps) View {
	return View{sh: sh, GalleryDeps: deps}
}

// GalleryNav is the gallery grid as the viewer browses and deletes in it (View).
type GalleryNav interface {
	// SelectEntry selects file and shows it; full is its decoded image when at hand.
	SelectEntry(file string, full image.Image)
	// VisibleEntries are the images in the grid's order (search and filters apply).
	VisibleEntries() []gallery.Entry
	IndexOf(file string) int
	SelectAndScroll(file string)
	DeleteEntry(e gallery.Entry)
	DeleteShown()
	// Deleting reports whether file is being moved to the trash.
	Deleting(file string) bool
}

// GalleryDeps is what the gallery grid uses of the other components; UI.wire gives it.
type GalleryDeps struct {
	View    ShownView
	Running func() bool // a generation runs
	// The cell menu's actions: Reuse settings, Render larger, Use as reference.
	RestoreSettings func(imageio.Metadata)
	RenderLarger    func(gallery.Entry)
	AddReference    func(path string)
	// ListChanged follows a change of the grid's images or order (runner.syncBatch).
	ListChanged func()
}

// ShownView is the viewer as the gallery shows its images there (Viewer).
type ShownView interface {
	ShowEntry(e gallery.Entry, full image.Image)
	ShownEntry() (gallery.Entry, bool)
	FollowsRun() bool
	Update()
	ClearShown()
	// StarChanged takes a changed star of the gallery image e.
	StarChanged(e gallery.Entry)
	CopyImage(e gallery.Entry, done func())
}
