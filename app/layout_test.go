package app

import (
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"kleinbild/engine/hub"
)

// laptopWindow is the content area of a window on a 1366×768 screen, less about 60 pixels
// of title bar and desktop panel.
var laptopWindow = fyne.NewSize(1366, 708)

// shownRect is where target is drawn inside root, clipped by the scroll containers around
// it; ok is false when target is not in root or is hidden.
func shownRect(root, target fyne.CanvasObject) (pos fyne.Position, size fyne.Size, ok bool) {
	type rect struct{ x0, y0, x1, y1 float32 }
	var walk func(o fyne.CanvasObject, at fyne.Position, clip rect) (rect, bool)
	walk = func(o fyne.CanvasObject, at fyne.Position, clip rect) (rect, bool) {
		if !o.Visible() {
			return rect{}, false
		}
		p := at.Add(o.Position())
		r := rect{p.X, p.Y, p.X + o.Size().Width, p.Y + o.Size().Height}
		if o == target {
			return rect{max(r.x0, clip.x0), max(r.y0, clip.y0), min(r.x1, clip.x1), min(r.y1, clip.y1)}, true
		}
		if _, isScroll := o.(*container.Scroll); isScroll {
			clip = rect{max(r.x0, clip.x0), max(r.y0, clip.y0), min(r.x1, clip.x1), min(r.y1, clip.y1)}
		}
		var kids []fyne.CanvasObject
		switch v := o.(type) {
		case *fyne.Container:
			kids = v.Objects
		case fyne.Widget:
			kids = test.WidgetRenderer(v).Objects()
		}
		for _, k := range kids {
			if got, found := walk(k, p, clip); found {
				return got, true
			}
		}
		return rect{}, false
	}
	big := float32(1e9)
	r, found := walk(root, fyne.Position{}, rect{-big, -big, big, big})
	if !found {
		return fyne.Position{}, fyne.Size{}, false
	}
	return fyne.NewPos(r.x0, r.y0), fyne.NewSize(max(0, r.x1-r.x0), max(0, r.y1-r.y0)), true
}

// windowMin is the smallest size the window can take: its content's minimum size plus the
// canvas padding (a real window cannot be made smaller).
func windowMin(w fyne.Window) fyne.Size {
	return w.Canvas().Content().MinSize().Add(fyne.NewSquareSize(2 * theme.Padding()))
}

// relayout lays out o and everything in it at their current sizes, top down, as a real
// window does before drawing when minimum sizes have changed.
func relayout(o fyne.CanvasObject) {
	if !o.Visible() {
		return
	}
	var kids []fyne.CanvasObject
	switch v := o.(type) {
	case *fyne.Container:
		if v.Layout != nil {
			v.Layout.Layout(v.Objects, v.Size())
		}
		kids = v.Objects
	case fyne.Widget:
		r := test.WidgetRenderer(v)
		r.Layout(v.Size())
		kids = r.Objects()
	}
	for _, k := range kids {
		relayout(k)
	}
}

// requireShown fails unless every object is drawn in full inside the window's canvas,
// not clipped by a scroll container or the window edge.
func requireShown(t *testing.T, w fyne.Window, what string, objs ...fyne.CanvasObject) {
	t.Helper()
	relayout(w.Canvas().Content())
	win := w.Canvas().Size()
	for i, o := range objs {
		pos, size, ok := shownRect(w.Canvas().Content(), o)
		want := o.Size()
		full := ok && size.Width >= want.Width-0.5 && size.Height >= want.Height-0.5 && want.Height > 0
		inside := pos.X >= 0 && pos.Y >= 0 && pos.X+size.Width <= win.Width+0.5 && pos.Y+size.Height <= win.Height+0.5
		if !full || !inside {
			t.Errorf("%s (%d, %T) in a %v window: shown at %v size %v of %v (found %v)", what, i, o, win, pos, size, want, ok)
		}
	}
}

// A 1366×768 laptop screen holds the window with every control reachable: Generate and the
// fit line under it stay in view with references added and an image shown, also at the
// window's smallest size, and Cancel with the progress while a run goes on. (Before: the
// window could not be smaller than 1104×746 and Generate was scrolled out of view.)
func TestWindowFitsLaptopScreen(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	if out := h.generate("a lighthouse"); out.err != nil {
		t.Fatal(out.err)
	}
	dir := t.TempDir()
	var uris []fyne.URI
	for _, n := range []string{"a.png", "b.png", "c.png"} {
		uris = append(uris, storage.NewFileURI(writeTestPNG(t, dir, n, 96, 80, nil)))
	}
	h.drop(uris)
	if len(u.refs.paths) != 3 {
		t.Fatalf("refs %v", u.refs.paths)
	}
	h.waitFor("the fit line", 10*time.Second, func() bool { return u.ctl.fit.Visible() && u.ctl.fit.Text != "" })

	small := fyne.NewSize(1024, 640)
	if m := windowMin(h.win); m.Width > small.Width || m.Height > small.Height {
		t.Errorf("the window cannot be smaller than %v, want at most %v", m, small)
	}
	for _, size := range []fyne.Size{laptopWindow, windowMin(h.win), fyne.NewSize(1280, 860)} {
		h.win.Resize(size.Max(windowMin(h.win)))
		requireShown(t, h.win, "Generate and fit line", u.ctl.generate, u.ctl.fit)
		requireShown(t, h.win, "image actions", u.view.reuseBtn, u.view.deleteBtn)
	}

	// While running: Cancel (the same button) and the progress stay in view.
	h.win.Resize(laptopWindow)
	fake.block = true
	test.Tap(u.ctl.generate)
	<-fake.started
	h.settle()
	if u.ctl.generate.Text != "Cancel" {
		t.Fatalf("main button %q while running", u.ctl.generate.Text)
	}
	requireShown(t, h.win, "Cancel and progress", u.ctl.generate, u.view.progressText, u.view.bar)
	u.Cancel()
	h.waitFor("the run to end", 10*time.Second, func() bool { return u.run.cur == nil })
}

// The first-start page shows the download's progress line without scrolling on a laptop
// screen. (Before: it sat below the visible area.)
func TestSetupGuideShowsDownloadProgress(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	u := h.ui
	if !u.view.setup.Visible() {
		t.Fatal("no setup guide without a model")
	}
	if m := windowMin(h.win); m.Width > laptopWindow.Width || m.Height > laptopWindow.Height {
		t.Errorf("the window cannot be smaller than %v", m)
	}
	h.win.Resize(laptopWindow)
	p := u.view.setupDownload
	u.model.dl = &downloadRun{variant: p.selected(), dir: cleanDir(p.dest.Text), running: true, cancel: func() {},
		last: hub.Progress{Phase: hub.PhaseDownloading, Bytes: 3 << 30, TotalBytes: 16 << 30, Rate: 12e6, ETA: 20 * time.Minute,
			File: filepath.Join("transformer", "diffusion_pytorch_model-00001-of-00002.safetensors")}}
	u.model.refreshDownloads()
	requireShown(t, h.win, "download progress", p.bar, p.detail, p.pause)

	// Before the size is known, the busy bar takes the same place.
	u.model.dl.last = hub.Progress{Phase: hub.PhaseListing}
	u.model.refreshDownloads()
	requireShown(t, h.win, "download progress", p.busy, p.detail)
	u.model.dl.running = false
	u.model.dl = nil
	u.model.refreshDownloads()
}
