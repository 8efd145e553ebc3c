package galleryui

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/inpaintui"
	"kleinbild/app/internal/uitest"
	"kleinbild/app/modelui"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/internal/testfix/metapng"
)

// testUI is the viewer and the gallery grid in a window of their own, with the shell they
// share, as the root UI builds them; what they use of the other components is faked.
type testUI struct {
	*shell.Shell
	view Viewer
	gal  View
	// restored, seeds and refs record the settings, seeds and references the actions sent.
	restored []imageio.Metadata
	seeds    []uint64
	refs     []string
}

// newTestUI builds the viewer and gallery over dataDir in w; modelUsable stands for a
// usable model (the viewer then shows its empty guide, not the setup).
func newTestUI(t *testing.T, w *uitest.Window, dataDir string, modelUsable bool) *testUI {
	t.Helper()
	sh := w.NewShell(dataDir, uitest.ShellOptions{Settings: true, Thumbs: true, Banner: true, WhileAlive: true})
	sh.GalleryReady = make(chan struct{})
	u := &testUI{Shell: sh}
	no := func() bool { return false }
	u.view = NewViewer(u.Shell, ViewerDeps{
		Running: no, ModelUsable: func() bool { return modelUsable }, MarkBatch: func(string) {}, Gal: &u.gal,
		ReuseSettings:   func(m imageio.Metadata) { u.restored = append(u.restored, m) },
		ReuseSeed:       func(s uint64) { u.seeds = append(u.seeds, s) },
		AddReference:    func(p string) { u.refs = append(u.refs, p) },
		RenderLarger:    func() {},
		ShowInpaint:     func(string, image.Image) *inpaintui.Mode { return nil },
		ShowModelDialog: func() {},
		DownloadPanel: func() (*modelui.DownloadPanel, func()) {
			return &modelui.DownloadPanel{Box: container.NewVBox()}, func() {}
		},
		SaveAs: func(string, string, string, func() string, func(string)) {},
	})
	u.gal = NewView(u.Shell, GalleryDeps{
		View: &u.view, Running: no,
		RestoreSettings: func(m imageio.Metadata) { u.restored = append(u.restored, m) },
		RenderLarger:    func(gallery.Entry) {},
		AddReference:    func(p string) { u.refs = append(u.refs, p) },
	})
	split := container.NewHSplit(u.view.Build(), u.gal.Build())
	split.Offset = 0.64
	center := container.New(shell.BannerOverlay{}, split, u.Banner.Box)
	u.Banner.Root = center
	w.Win.SetContent(u.Tips.Wrap(container.NewBorder(nil, u.Status, nil, nil, center)))
	w.Win.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape && u.EscapeDialog(w.Win.Canvas()) {
			return
		}
		if u.gal.TypedKey(ev) {
			return
		}
		u.view.TypedKey(ev)
	})
	go u.loadGallery(filepath.Join(dataDir, "gallery"))
	return u
}

// loadGallery opens the gallery folder off the UI goroutine, as the root UI does.
func (u *testUI) loadGallery(dir string) {
	g, rep, err := gallery.Open(context.Background(), dir, gallery.Options{TrashDir: filepath.Join(u.DataDir, "trash")})
	u.ForgetThumbs(g, rep.Expired)
	u.Post(func() {
		defer close(u.GalleryReady)
		if g == nil {
			u.ShowError(fmt.Errorf("the gallery could not be opened: %w", err))
			return
		}
		u.Gallery = g
		if err != nil {
			u.ShowError(err)
		}
		u.gal.Refresh()
		u.gal.ShowLastViewed()
	})
}

// close stops the UI and waits for its background work.
func (u *testUI) close() {
	u.End()
	u.BG.Wait()
	u.Thumbs.Close()
}

// harness runs a testUI on the test driver with its own event loop standing in for the
// Fyne UI goroutine (uitest.Loop, as the root package's harness does).
type harness struct {
	*uitest.Window
	t   *testing.T
	ui  *testUI
	win fyne.Window
}

// settle runs the loop until it has been quiet for a moment.
func (h *harness) settle() { h.Settle() }

// waitFor runs the event loop until cond holds, failing the test after the timeout (at
// least uitest.MinWait).
func (h *harness) waitFor(what string, timeout time.Duration, cond func() bool) {
	h.t.Helper()
	h.WaitFor(what, timeout, cond)
}

// newHarness builds the viewer and gallery over dataDir in a 1280×860 window.
func newHarness(t *testing.T, dataDir string, modelUsable bool) *harness {
	t.Helper()
	w := uitest.NewWindow(t)
	h := &harness{Window: w, t: t, win: w.Win}
	h.ui = newTestUI(t, w, dataDir, modelUsable)
	t.Cleanup(h.close)
	h.waitFor("the gallery to load", 10*time.Second, func() bool { return uitest.IsClosed(h.ui.GalleryReady) })
	return h
}

// close shuts the UI down while still serving its posts, like the real app.
func (h *harness) close() {
	if h.Close(h.ui.close) {
		h.win.Close()
	}
}

// galleryHarness starts the UI over a gallery holding one image per prompt (the last
// prompt newest), without a usable model.
func galleryHarness(t *testing.T, data string, prompts ...string) *harness {
	t.Helper()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, p := range prompts {
		writeTestPNG(t, dir, fmt.Sprintf("img-%02d.png", i), 32, 24,
			&imageio.Metadata{Settings: schema.Settings{Prompt: p, Seed: uint64(i + 1), Width: 32, Height: 24}, Created: t0.Add(time.Duration(i) * time.Minute)})
	}
	return newHarness(t, data, false)
}

// viewerHarness starts the UI over a gallery of n plain PNGs of different widths, with a
// usable model.
func viewerHarness(t *testing.T, n int) *harness {
	t.Helper()
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		writeTestPNG(t, dir, string(rune('a'+i))+".png", 40+8*i, 30, nil)
	}
	h := newHarness(t, data, true)
	if h.ui.Gallery.Len() != n {
		t.Fatalf("gallery has %d images, want %d", h.ui.Gallery.Len(), n)
	}
	return h
}

// at is the gallery's i-th entry.
func (h *harness) at(i int) gallery.Entry {
	h.t.Helper()
	e, ok := h.ui.Gallery.At(i)
	if !ok {
		h.t.Fatalf("no gallery entry %d", i)
	}
	return e
}

// key types a key on canvas c as the window does when no widget has the focus.
func key(c fyne.Canvas, name fyne.KeyName) { uitest.Key(c, name) }

// waitShownImage waits until the viewer shows e's full image.
func (h *harness) waitShownImage(e gallery.Entry) {
	h.t.Helper()
	w := 0
	if img, err := thumbcache.DecodeFile(h.ui.Gallery.Path(e)); err == nil {
		w = img.Bounds().Dx()
	}
	h.waitFor("the image of "+e.File, 5*time.Second, func() bool {
		img := h.ui.view.Image.Image
		return h.ui.view.ShownOK && h.ui.view.Shown.File == e.File && img != nil && img.Bounds().Dx() == w
	})
}

// writeTestPNG writes a w×h testfix.Pattern PNG (with meta when given) and returns its path.
func writeTestPNG(t *testing.T, dir, name string, w, h int, meta *imageio.Metadata) string {
	t.Helper()
	return metapng.Write(t, dir, name, w, h, meta)
}

// findButton returns the button labelled text inside o (uitest.FindButton).
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	return uitest.FindButton(o, text)
}

// visiblePrompts are the prompts of the grid's images in its order.
func visiblePrompts(u *testUI) []string {
	var out []string
	for _, e := range u.gal.Visible {
		out = append(out, e.Meta.Prompt)
	}
	return out
}

// galleryCellFor returns the grid cell showing file (the grid builds cells for its visible
// area only).
func galleryCellFor(t *testing.T, u *testUI, file string) *CellView {
	t.Helper()
	var found *CellView
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *CellView:
			if v.File == file {
				found = v
			}
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	walk(u.gal.Grid)
	if found == nil {
		t.Fatalf("no grid cell shows %s", file)
	}
	return found
}
