package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

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
	if u.gallery.Len() != 1 {
		t.Fatalf("gallery has %d images, want the plain PNG", u.gallery.Len())
	}
	u.ctl.prompt.SetText("my own prompt")
	u.gal.selectEntry("holiday.png", nil)
	h.settle()
	reuse := findButton(u.view.info, "Reuse settings")
	seed := findButton(u.view.info, "Reuse seed")
	if reuse == nil || seed == nil {
		t.Fatal("reuse buttons not found")
	}
	if !reuse.Disabled() || !seed.Disabled() {
		t.Errorf("reuse settings disabled %v, reuse seed disabled %v; want both disabled", reuse.Disabled(), seed.Disabled())
	}
	if !strings.Contains(strings.ToLower(u.view.details.Text), "no kleinbild settings") {
		t.Errorf("details %q do not say why nothing can be reused", u.view.details.Text)
	}
	test.Tap(reuse)
	test.Tap(seed)
	if u.ctl.prompt.Text != "my own prompt" || u.ctl.seedLocked {
		t.Errorf("after tapping: prompt %q, seed locked %v", u.ctl.prompt.Text, u.ctl.seedLocked)
	}
	if strings.Contains(u.status.Text, "restored") || strings.Contains(u.status.Text, "locked") {
		t.Errorf("status %q reports a reuse that did not happen", u.status.Text)
	}

	// An image with settings enables them again.
	out := h.generate("a lighthouse")
	h.settle()
	if !u.view.shownOK || u.view.shown.File != out.entry.File || reuse.Disabled() || seed.Disabled() {
		t.Errorf("generated image: shown %v, reuse disabled %v, seed disabled %v", u.view.shown.File, reuse.Disabled(), seed.Disabled())
	}
}

// startAndPreview starts a generation on a blocking or failing fake and waits until it runs.
func startAndPreview(t *testing.T, h *harness, fake *fakeGen, prompt string) *runState {
	t.Helper()
	u := h.ui
	u.ctl.prompt.SetText(prompt)
	test.Tap(u.ctl.generate)
	r := u.run.cur
	if r == nil {
		t.Fatalf("Generate did not start (banner %q)", u.errorText())
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
	h.waitFor("the preview", 5*time.Second, func() bool { return u.view.image.Image != nil })
	u.Cancel()
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.cur == nil })
	h.settle()
	if u.view.shownOK || u.view.info.Visible() || u.view.imageArea.Visible() || !u.view.empty.Visible() {
		t.Errorf("after cancelling with nothing selected: shownOK %v, info %v, image area %v, empty %v",
			u.view.shownOK, u.view.info.Visible(), u.view.imageArea.Visible(), u.view.empty.Visible())
	}

	fake.block = false
	out := h.generate("the keeper")
	h.settle()
	want := out.entry
	checkShown := func(when string) {
		t.Helper()
		h.waitFor("the selected image "+when, 5*time.Second, func() bool {
			img := u.view.image.Image
			return img != nil && img.Bounds().Dx() == want.Meta.Width && img.Bounds().Dy() == want.Meta.Height
		})
		if !u.view.shownOK || u.view.shown.File != want.File || !u.view.info.Visible() || !u.view.imageArea.Visible() {
			t.Errorf("%s: shown %q (ok %v), info %v, image area %v", when, u.view.shown.File, u.view.shownOK, u.view.info.Visible(), u.view.imageArea.Visible())
		}
		if u.view.prompt.Text != "the keeper" {
			t.Errorf("%s: caption %q", when, u.view.prompt.Text)
		}
	}

	fake.block = true
	startAndPreview(t, h, fake, "second, cancelled")
	h.waitFor("the preview", 5*time.Second, func() bool {
		img := u.view.image.Image
		return img != nil && img.Bounds().Dx() == want.Meta.Width/8
	})
	u.Cancel()
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.cur == nil })
	checkShown("after cancel")

	fake.block = false
	fake.fail = errors.New("out of memory")
	startAndPreview(t, h, fake, "third, failing")
	h.waitFor("the run to fail", 5*time.Second, func() bool { return u.run.cur == nil })
	checkShown("after failure")
	if !strings.Contains(u.errorText(), "out of memory") {
		t.Errorf("banner %q", u.errorText())
	}
}

// Issue 12, defect 4: banners and the status line clear when their condition goes.
func TestMessagesClearWithTheirCondition(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), "", fake.open)
	u := h.ui

	// The model banner goes once a model is chosen.
	u.ctl.prompt.SetText("x")
	test.Tap(u.ctl.generate)
	if !strings.Contains(strings.ToLower(u.errorText()), "model") {
		t.Fatalf("no model banner: %q", u.errorText())
	}
	h.tapDialogButton("Close")
	if err := u.SetModelDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	if u.errorText() != "" {
		t.Errorf("banner %q stays after choosing a model", u.errorText())
	}

	// A reference error goes after a later successful run.
	dir := t.TempDir()
	u.AddReference(filepath.Join(dir, "missing.png"))
	if !strings.Contains(u.errorText(), "missing.png") {
		t.Fatalf("no reference error: %q", u.errorText())
	}
	out := h.generate("a fox")
	if out.err != nil {
		t.Fatal(out.err)
	}
	h.settle()
	if u.errorText() != "" {
		t.Errorf("banner %q stays after a successful run", u.errorText())
	}

	// A reference that vanished fails the run; removing it clears the error.
	ref := writeTestPNG(t, dir, "ref.png", 64, 64, nil)
	u.AddReference(ref)
	if err := os.Remove(ref); err != nil {
		t.Fatal(err)
	}
	out = h.generate("a fox with a reference")
	if out.err == nil || !strings.Contains(u.errorText(), "ref.png") {
		t.Fatalf("run with a vanished reference: %v, banner %q", out.err, u.errorText())
	}
	u.refs.remove(ref)
	if u.errorText() != "" {
		t.Errorf("banner %q stays after removing the bad reference", u.errorText())
	}

	// The seed-lock notice goes when a run starts.
	u.gal.selectEntry(u.view.shown.File, nil)
	h.settle()
	test.Tap(findButton(u.view.info, "Reuse seed"))
	if !strings.Contains(u.status.Text, "locked") {
		t.Fatalf("status %q after Reuse seed", u.status.Text)
	}
	fake.block = true
	startAndPreview(t, h, fake, "a long run")
	if strings.Contains(u.status.Text, "locked") {
		t.Errorf("status %q stays while a run is going", u.status.Text)
	}
	u.Cancel()
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.cur == nil })
}
