package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/gallery"
	"kleinbild/app/run"
	"kleinbild/app/thumbcache"
)

// galleryHarness starts a UI over a gallery of n plain PNGs of different widths.
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
	h := newHarness(t, data, tinyModel(t), newFakeGen().open)
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
func key(c fyne.Canvas, name fyne.KeyName) {
	c.OnTypedKey()(&fyne.KeyEvent{Name: name})
}

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
func TestArrowKeysBrowseTheGallery(t *testing.T) {
	h := viewerHarness(t, 3)
	u := h.ui
	c := h.win.Canvas()

	// With nothing shown, an arrow shows the first image.
	key(c, fyne.KeyRight)
	if !u.view.ShownOK || u.view.Shown.File != h.at(0).File {
		t.Fatalf("after → with nothing shown: %q (shown %v), want %q", u.view.Shown.File, u.view.ShownOK, h.at(0).File)
	}
	for _, step := range []struct {
		key  fyne.KeyName
		want int
	}{
		{fyne.KeyRight, 1}, {fyne.KeyRight, 2}, {fyne.KeyRight, 2}, // stops at the last
		{fyne.KeyLeft, 1}, {fyne.KeyHome, 0}, {fyne.KeyLeft, 0}, {fyne.KeyEnd, 2},
	} {
		key(c, step.key)
		if want := h.at(step.want).File; u.view.Shown.File != want {
			t.Fatalf("after %s: shown %q, want %q", step.key, u.view.Shown.File, want)
		}
	}
	h.waitShownImage(h.at(2))
	if got := u.gal.Grid; got == nil {
		t.Fatal("no grid")
	}

	// While a text field has the focus, the keys are the field's.
	for _, entry := range []fyne.Focusable{u.ctl.Prompt, u.ctl.Seed} {
		c.Focus(entry)
		key(c, fyne.KeyLeft)
		key(c, fyne.KeyHome)
		key(c, fyne.KeyDelete)
		if u.view.Shown.File != h.at(2).File || u.Gallery.Len() != 3 {
			t.Errorf("keys acted while %T had the focus: shown %q, %d images", entry, u.view.Shown.File, u.Gallery.Len())
		}
		c.Unfocus()
	}
	key(c, fyne.KeyLeft)
	if u.view.Shown.File != h.at(1).File {
		t.Errorf("after unfocusing, ← shows %q, want %q", u.view.Shown.File, h.at(1).File)
	}
}
func TestDeleteKeyDeletesTheShownImage(t *testing.T) {
	h := viewerHarness(t, 3)
	u := h.ui
	c := h.win.Canvas()
	mid, last := h.at(1), h.at(2)
	u.gal.SelectEntry(mid.File, nil)
	h.settle()

	c.Focus(u.ctl.Prompt)
	key(c, fyne.KeyDelete)
	c.Unfocus()
	if u.Gallery.Len() != 3 {
		t.Fatalf("Delete in the prompt deleted an image")
	}

	key(c, fyne.KeyDelete)
	h.waitFor("the image to go to the trash", 10*time.Second, func() bool { return u.gal.IndexOf(mid.File) < 0 })
	h.settle()
	if u.Gallery.IndexOf(mid.File) >= 0 {
		t.Fatalf("%s is still in the gallery", mid.File)
	}
	if _, err := os.Stat(filepath.Join(u.Gallery.Dir(), mid.File)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still on disk: %v", mid.File, err)
	}
	if !u.view.ShownOK || u.view.Shown.File != last.File {
		t.Errorf("after deleting, shown %q (%v), want the next image %q", u.view.Shown.File, u.view.ShownOK, last.File)
	}
	// The last image's neighbour is the one before it.
	key(c, fyne.KeyDelete)
	h.waitFor("the last image to go", 10*time.Second, func() bool { return len(u.gal.Visible) == 1 })
	h.settle()
	if !u.view.ShownOK || u.view.Shown.File != h.at(0).File || u.Gallery.Len() != 1 {
		t.Errorf("after deleting the last: shown %q, %d images", u.view.Shown.File, u.Gallery.Len())
	}
	key(c, fyne.KeyDelete)
	h.waitFor("the only image to go", 10*time.Second, func() bool { return len(u.gal.Visible) == 0 })
	h.settle()
	if u.view.ShownOK || u.Gallery.Len() != 0 {
		t.Errorf("after deleting the only image: shown %v, %d images", u.view.ShownOK, u.Gallery.Len())
	}
	key(c, fyne.KeyDelete) // nothing shown: nothing happens
}
func TestZoomKeysButtonsAndMouse(t *testing.T) {
	h := viewerHarness(t, 1)
	u := h.ui
	c := h.win.Canvas()
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.waitShownImage(e)
	z := u.view.Image
	if z.Size().Width < 300 {
		t.Fatalf("image area only %v", z.Size())
	}
	fit := z.Percent()
	if !z.Fitted() || fit <= 100 || u.view.Zoom.Level.Text == "" || !strings.HasPrefix(u.view.Zoom.Level.Text, "Fit") {
		t.Fatalf("a small image starts fitted and enlarged: fitted %v, %d%%, level %q", z.Fitted(), fit, u.view.Zoom.Level.Text)
	}

	key(c, fyne.KeyPlus)
	if z.Fitted() || z.Percent() != fit*5/4 && z.Percent() != fit*5/4+1 {
		t.Errorf("after +: fitted %v, %d%%, want about %d%%", z.Fitted(), z.Percent(), fit*5/4)
	}
	key(c, fyne.Key0)
	if !z.Fitted() || z.Percent() != fit {
		t.Errorf("after 0: fitted %v, %d%%", z.Fitted(), z.Percent())
	}
	key(c, fyne.Key1)
	if z.Percent() != 100 || u.view.Zoom.Level.Text != "100%" {
		t.Errorf("after 1: %d%%, level %q", z.Percent(), u.view.Zoom.Level.Text)
	}
	key(c, fyne.KeyMinus) // already the smallest the limits allow for a small image
	if z.Percent() != 100 {
		t.Errorf("after − at actual size: %d%%", z.Percent())
	}

	// Zoom keys do nothing while typing.
	c.Focus(u.ctl.Prompt)
	key(c, fyne.Key0)
	c.Unfocus()
	if z.Fitted() {
		t.Error("0 typed in the prompt fitted the image")
	}

	// The level button and a double click switch between fit and 100 %.
	test.Tap(u.view.Zoom.Level)
	if !z.Fitted() {
		t.Error("the level button did not fit the image")
	}
	z.DoubleTapped(&fyne.PointEvent{Position: fyne.NewPos(10, 10)})
	if z.Percent() != 100 {
		t.Errorf("double click: %d%%, want 100", z.Percent())
	}
	z.DoubleTapped(&fyne.PointEvent{})
	if !z.Fitted() {
		t.Error("second double click did not fit")
	}

	// The wheel zooms, the buttons zoom, dragging pans a zoomed image within bounds.
	for range 3 { // a notch zooms one step: three to be larger than the view both ways
		z.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(20, 20)}, Scrolled: fyne.NewDelta(0, 30)})
	}
	if z.Fitted() || z.Percent() <= fit {
		t.Errorf("after scrolling up: fitted %v, %d%%", z.Fitted(), z.Percent())
	}
	p := z.Percent()
	test.Tap(u.view.Zoom.In)
	if z.Percent() <= p {
		t.Errorf("zoom-in button: %d%% after %d%%", z.Percent(), p)
	}
	test.Tap(u.view.Zoom.Out)
	if z.Percent() >= p+p/4 {
		t.Errorf("zoom-out button: %d%%", z.Percent())
	}
	for range 50 {
		z.Dragged(&fyne.DragEvent{Dragged: fyne.NewDelta(500, 500)})
	}
	z.DragEnd()
	if z.Offset().X > 0 || z.Offset().Y > 0 {
		t.Errorf("dragging moved the image off its edge: offset %v", z.Offset())
	}
	// Only the visible part is drawn.
	for range 40 {
		z.ZoomIn()
	}
	if b := z.Shown().Bounds(); b.Dx() >= 40 {
		t.Errorf("at %d%% the whole image (%v) is drawn", z.Percent(), b)
	}

	// A new image starts fitted.
	h.generate("another")
	h.settle()
	if !z.Fitted() {
		t.Error("the new image is not fitted")
	}
}

// Issue 12, defect 2: an image without Kleinbild metadata has no settings to restore, so
// "Reuse settings" and "Reuse seed" are disabled and the viewer says why.
func TestImageWithoutMetadataCannotBeReused(t *testing.T) {
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "gallery"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, filepath.Join(data, "gallery"), "holiday.png", 64, 48, nil)
	fake := newFakeGen()
	h := newHarness(t, data, tinyModel(t), fake.open)
	u := h.ui
	if u.Gallery.Len() != 1 {
		t.Fatalf("gallery has %d images, want the plain PNG", u.Gallery.Len())
	}
	u.ctl.Prompt.SetText("my own prompt")
	u.gal.SelectEntry("holiday.png", nil)
	h.settle()
	reuse := findButton(u.view.Actions, "Reuse settings")
	seed := findButton(u.view.Actions, "Reuse seed")
	if reuse == nil || seed == nil {
		t.Fatal("reuse buttons not found")
	}
	if !reuse.Disabled() || !seed.Disabled() {
		t.Errorf("reuse settings disabled %v, reuse seed disabled %v; want both disabled", reuse.Disabled(), seed.Disabled())
	}
	if !strings.Contains(strings.ToLower(u.view.Details.Text), "no kleinbild settings") {
		t.Errorf("details %q do not say why nothing can be reused", u.view.Details.Text)
	}
	test.Tap(reuse)
	test.Tap(seed)
	if u.ctl.Prompt.Text != "my own prompt" || u.ctl.SeedIsLocked() {
		t.Errorf("after tapping: prompt %q, seed locked %v", u.ctl.Prompt.Text, u.ctl.SeedIsLocked())
	}
	if strings.Contains(u.Status.Text, "restored") || strings.Contains(u.Status.Text, "locked") {
		t.Errorf("status %q reports a reuse that did not happen", u.Status.Text)
	}

	// An image with settings enables them again.
	out := h.generate("a lighthouse")
	h.settle()
	if !u.view.ShownOK || u.view.Shown.File != out.Entry.File || reuse.Disabled() || seed.Disabled() {
		t.Errorf("generated image: shown %v, reuse disabled %v, seed disabled %v", u.view.Shown.File, reuse.Disabled(), seed.Disabled())
	}
}

// startAndPreview starts a generation on a blocking or failing fake and waits until it runs.
func startAndPreview(t *testing.T, h *harness, fake *fakeGen, prompt string) *run.State {
	t.Helper()
	u := h.ui
	u.ctl.Prompt.SetText(prompt)
	test.Tap(u.ctl.Generate)
	r := u.run.Current()
	if r == nil {
		t.Fatalf("Generate did not start (banner %q)", u.ErrorText())
	}
	select {
	case <-fake.started:
	case <-time.After(5 * time.Second):
		t.Fatal("generator was not called")
	}
	return r
}

// Issue 12, defect 3: after a cancelled or failed run the viewer shows the image its
// caption and buttons belong to, or the empty state.
func TestViewerAfterCancelOrFailureShowsTheSelectedImage(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui

	// With nothing selected before, a cancelled run leaves the empty state.
	fake.block = true
	startAndPreview(t, h, fake, "first, cancelled")
	h.waitFor("the preview", 5*time.Second, func() bool { return u.view.Image.Image != nil })
	u.Cancel()
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
	h.settle()
	if u.view.ShownOK || u.view.Info.Visible() || u.view.ImageArea.Visible() || !u.view.Empty.Visible() {
		t.Errorf("after cancelling with nothing selected: shownOK %v, info %v, image area %v, empty %v",
			u.view.ShownOK, u.view.Info.Visible(), u.view.ImageArea.Visible(), u.view.Empty.Visible())
	}

	fake.block = false
	out := h.generate("the keeper")
	h.settle()
	want := out.Entry
	checkShown := func(when string) {
		t.Helper()
		h.waitFor("the selected image "+when, 5*time.Second, func() bool {
			img := u.view.Image.Image
			return img != nil && img.Bounds().Dx() == want.Meta.Width && img.Bounds().Dy() == want.Meta.Height
		})
		if !u.view.ShownOK || u.view.Shown.File != want.File || !u.view.Info.Visible() || !u.view.ImageArea.Visible() {
			t.Errorf("%s: shown %q (ok %v), info %v, image area %v", when, u.view.Shown.File, u.view.ShownOK, u.view.Info.Visible(), u.view.ImageArea.Visible())
		}
		if u.view.Prompt.Text != "the keeper" {
			t.Errorf("%s: caption %q", when, u.view.Prompt.Text)
		}
	}

	fake.block = true
	startAndPreview(t, h, fake, "second, cancelled")
	h.waitFor("the preview", 5*time.Second, func() bool {
		img := u.view.Image.Image
		return img != nil && img.Bounds().Dx() == want.Meta.Width/8
	})
	u.Cancel()
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
	checkShown("after cancel")

	fake.block = false
	fake.fail = errors.New("out of memory")
	startAndPreview(t, h, fake, "third, failing")
	h.waitFor("the run to fail", 5*time.Second, func() bool { return u.run.Current() == nil })
	checkShown("after failure")
	if !strings.Contains(u.ErrorText(), "out of memory") {
		t.Errorf("banner %q", u.ErrorText())
	}
}
