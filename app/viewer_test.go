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

// The arrow, Home, End and Delete keys are the text field's while one has the focus; the
// viewer's own handling of them is tested in app/galleryui.
func TestArrowKeysWaitWhileTyping(t *testing.T) {
	h := viewerHarness(t, 3)
	u := h.ui
	c := h.win.Canvas()
	u.gal.SelectEntry(h.at(2).File, nil)
	h.waitShownImage(h.at(2))

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
	key(c, fyne.KeyDelete)
	h.waitFor("the image to go to the trash", 10*time.Second, func() bool { return u.Gallery.Len() == 2 })
}

// Zoom keys do nothing while typing, and a new image from a run starts fitted (the zoom
// itself is tested in app/galleryui).
func TestZoomKeysWaitWhileTyping(t *testing.T) {
	h := viewerHarness(t, 1)
	u := h.ui
	c := h.win.Canvas()
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.waitShownImage(e)
	z := u.view.Image
	key(c, fyne.Key1)
	if z.Fitted() || z.Percent() != 100 {
		t.Fatalf("after 1: fitted %v, %d%%", z.Fitted(), z.Percent())
	}
	c.Focus(u.ctl.Prompt)
	key(c, fyne.Key0)
	c.Unfocus()
	if z.Fitted() {
		t.Error("0 typed in the prompt fitted the image")
	}

	// A new image starts fitted.
	h.generate("another")
	h.settle()
	if !z.Fitted() {
		t.Error("the new image is not fitted")
	}
}

// Issue 12, defect 2: the disabled "Reuse settings" and "Reuse seed" of an image without
// Kleinbild metadata leave the form alone, and a generated image enables them (the
// viewer's side is tested in app/galleryui).
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
