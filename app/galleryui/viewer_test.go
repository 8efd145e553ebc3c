package galleryui

import (
	"bytes"
	"errors"
	"image"
	"image/draw"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/widgets"
	"kleinbild/engine/imageio"
)

func TestNeighbourStopsAtTheEnds(t *testing.T) {
	h := viewerHarness(t, 3)
	u := h.ui
	first, mid, last := h.at(0), h.at(1), h.at(2)
	for _, c := range []struct {
		e     gallery.Entry
		delta int
		want  string
	}{
		{mid, 1, last.File}, {mid, -1, first.File}, {mid, -100, first.File}, {mid, 100, last.File},
		{first, -1, ""}, {last, 1, ""}, {mid, 0, ""}, {gallery.Entry{File: "gone.png"}, 1, ""},
	} {
		got, ok := u.view.neighbour(c.e, c.delta)
		if ok != (c.want != "") || got.File != c.want {
			t.Errorf("neighbour(%s, %d) = %q, %v; want %q", c.e.File, c.delta, got.File, ok, c.want)
		}
	}
}
func TestFullSizeView(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	first, second := h.at(0), h.at(1)
	u.gal.SelectEntry(first.File, nil)
	h.waitShownImage(first)

	key(h.win.Canvas(), fyne.KeyF)
	f := u.view.full
	if f == nil {
		t.Fatal("F did not open the full-size view")
	}
	if f.zoom.img.Image != u.view.Image.Image || !strings.Contains(f.win.Title(), first.File) {
		t.Errorf("full-size view shows another image, title %q", f.win.Title())
	}
	fc := f.win.Canvas()
	key(fc, fyne.KeyPlus)
	if f.zoom.img.Fitted() || !u.view.Image.Fitted() {
		t.Error("+ in the full-size view should zoom it, not the viewer")
	}
	key(fc, fyne.KeyRight)
	h.waitShownImage(second)
	if f.zoom.img.Image != u.view.Image.Image || !f.zoom.img.Fitted() || !strings.Contains(f.win.Title(), second.File) {
		t.Errorf("→ in the full-size view: its image follows %v, fitted %v, title %q",
			f.zoom.img.Image == u.view.Image.Image, f.zoom.img.Fitted(), f.win.Title())
	}
	test.Tap(u.view.Zoom.extra) // brings the open window forward
	if u.view.full != f {
		t.Error("a second full-size view was opened")
	}
	key(fc, fyne.KeyEscape)
	if u.view.full != nil {
		t.Error("Esc did not close the full-size view")
	}
	test.Tap(u.view.Zoom.extra)
	if u.view.full == nil {
		t.Fatal("the full-size button did not open the view")
	}
	test.Tap(u.view.full.zoom.extra)
	if u.view.full != nil {
		t.Error("the close button did not close the full-size view")
	}
}

// pixels returns img as NRGBA from the origin.
func pixels(img image.Image) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}
func TestCopyImagePutsThePixelsOnTheClipboard(t *testing.T) {
	h := viewerHarness(t, 1)
	u := h.ui
	var mu sync.Mutex
	var got []byte
	u.view.copyPNG = func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		got = b
		return nil
	}
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.settle()
	test.Tap(findButton(u.view.Actions, "Copy image"))
	h.waitFor("the status", 5*time.Second, func() bool { return strings.Contains(u.Status.Text, "Copied the image") })
	mu.Lock()
	data := got
	mu.Unlock()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the clipboard holds no PNG: %v", err)
	}
	want, err := imageio.Load(u.Gallery.Path(e))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := pixels(img), pixels(want); a.Rect != b.Rect || !bytes.Equal(a.Pix, b.Pix) {
		t.Errorf("clipboard image %v differs from the file's %v", a.Rect, b.Rect)
	}
	if u.view.copyImageBtn.Disabled() {
		t.Error("Copy image stays disabled")
	}

	// "Copy path" still copies the path, as text.
	test.Tap(findButton(u.view.Actions, "Copy path"))
	if p := u.App.Clipboard().Content(); p != u.Gallery.Path(e) {
		t.Errorf("Copy path put %q on the clipboard", p)
	}

	// A clipboard that fails gives a message, not a crash.
	u.view.copyPNG = func([]byte) error { return errors.New("no display") }
	test.Tap(findButton(u.view.Actions, "Copy image"))
	h.waitFor("the error", 5*time.Second, func() bool { return u.ErrorText() != "" })
	if msg := u.ErrorText(); !strings.Contains(msg, "could not be copied to the clipboard") || !strings.Contains(msg, "no display") {
		t.Errorf("banner %q", msg)
	}
}

// Issue 12: the viewer's buttons say what they do, with a label or a hover hint.
func TestViewerButtonsAreLabelled(t *testing.T) {
	h := viewerHarness(t, 1)
	u := h.ui
	u.gal.SelectEntry(h.at(0).File, nil)
	h.settle()
	var walk func(o fyne.CanvasObject)
	n := 0
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widgets.TipButton:
			n++
			if v.Tip == "" {
				t.Errorf("icon button without a hint")
			}
			return
		case *widget.Button:
			n++
			if v.Text == "" {
				t.Errorf("button without a label")
			}
			return
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		}
	}
	walk(u.view.Actions)
	walk(u.view.Zoom.box)
	if n < 12 {
		t.Errorf("found %d buttons, want the 8 actions and 4 zoom buttons", n)
	}

	// Hovering an icon button names it in a tooltip.
	b := u.view.Zoom.in
	u.Tips.SetTimer(func(_ time.Duration, fn func()) func() { fn(); return func() {} })
	b.MouseIn(&desktop.MouseEvent{})
	h.settle()
	if owner, text, visible := u.Tips.Showing(); owner != b || text != "Zoom in (+)" || !visible {
		t.Errorf("tooltip while hovering zoom in: %q (shown %v)", text, visible)
	}
	b.MouseOut()
	if _, _, visible := u.Tips.Showing(); visible {
		t.Error("tooltip still shown after hovering")
	}
}
