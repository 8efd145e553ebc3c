package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// menuAction does what the gallery cell menu's item label does for file: it calls the
// gallery's Deps as that item does (that the menu's items call them so is tested in
// app/galleryui).
func menuAction(t *testing.T, h *harness, file, label string) {
	t.Helper()
	g := &h.ui.gal
	e, ok := g.Entry(file)
	if !ok {
		t.Fatalf("no gallery entry %s", file)
	}
	switch label {
	case "Render larger":
		g.RenderLarger(e)
	case "Use as reference":
		g.AddReference(h.ui.Gallery.Path(e))
	case "Reuse settings":
		g.RestoreSettings(e.Meta)
	default:
		t.Fatalf("no menu action %q", label)
	}
}

// menuGallery writes a gallery of two 96×80 images (big enough to be references) under
// data: img-00.png "a red castle" (seed 1) and img-01.png "a blue sea" (seed 2, newer).
func menuGallery(t *testing.T, data string) {
	t.Helper()
	dir := filepath.Join(data, "gallery")
	os.MkdirAll(dir, 0o755)
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, p := range []string{"a red castle", "a blue sea"} {
		writeTestPNG(t, dir, fmt.Sprintf("img-%02d.png", i), 96, 80,
			&imageio.Metadata{Settings: schema.Settings{Prompt: p, Seed: uint64(i + 1), Width: 96, Height: 80, Steps: 2}, Created: t0.Add(time.Duration(i) * time.Minute)})
	}
}

// Issue 12: the gallery cell menu's "Use as reference" and "Reuse settings" reach the form,
// and the viewer keeps its image (the menu itself is tested in app/galleryui).
func TestGalleryCellMenuReachesTheForm(t *testing.T) {
	data := t.TempDir()
	menuGallery(t, data)
	h := newHarness(t, data, "", newFakeGen().open)
	u := h.ui
	u.gal.SelectEntry("img-01.png", nil)
	h.settle()
	const file = "img-00.png"
	path := filepath.Join(data, "gallery", file)

	menuAction(t, h, file, "Use as reference")
	h.waitFor("the reference", 5*time.Second, func() bool { return len(u.refs.RefPaths()) == 1 })
	if u.refs.RefPaths()[0] != path {
		t.Errorf("reference %v, want %s", u.refs.RefPaths(), path)
	}

	menuAction(t, h, file, "Reuse settings")
	if u.ctl.Prompt.Text != "a red castle" {
		t.Errorf("prompt %q after Reuse settings", u.ctl.Prompt.Text)
	}
	if !u.view.ShownOK || u.view.Shown.File != "img-01.png" {
		t.Errorf("after the menu the viewer shows %q", u.view.Shown.File)
	}
}

// For an image without Kleinbild settings, Render larger says why it cannot, and queues
// nothing (that the menu offers no Reuse settings is tested in app/galleryui).
func TestGalleryCellMenuWithoutSettings(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	os.MkdirAll(dir, 0o755)
	writeTestPNG(t, dir, "plain.png", 32, 32, nil)
	h := newHarness(t, data, "", newFakeGen().open)
	u := h.ui
	h.settle()
	menuAction(t, h, "plain.png", "Render larger")
	if len(u.run.Queue.Jobs) != 0 || u.run.Current() != nil || !strings.Contains(u.ErrorText(), "no Kleinbild settings") {
		t.Errorf("queued %d, banner %q", len(u.run.Queue.Jobs), u.ErrorText())
	}
}

// "Render larger" from the cell menu renders that image, not the one in the viewer: while a
// run goes on it is queued with the image as its first reference, and the viewer keeps
// following the run.
func TestGalleryCellMenuRenderLarger(t *testing.T) {
	data := t.TempDir()
	menuGallery(t, data)
	fake := newFakeGen()
	h := newHarness(t, data, tinyModel(t), fake.open)
	u := h.ui
	fake.block = true
	u.ctl.Prompt.SetText("something else")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	menuAction(t, h, "img-00.png", "Render larger")
	if len(u.run.Queue.Jobs) != 1 {
		t.Fatalf("%d jobs queued (banner %q)", len(u.run.Queue.Jobs), u.ErrorText())
	}
	r := u.run.Queue.Jobs[0].Req
	if r.Prompt != "a red castle" || r.Seed != 1 || len(r.References) == 0 || r.References[0] != filepath.Join(data, "gallery", "img-00.png") {
		t.Errorf("queued %+v", r)
	}
	if !u.view.FollowsRun() {
		t.Error("the viewer stopped following the run")
	}
	test.Tap(u.ctl.Generate) // cancel: the queued job starts
	waitStarted(t, h, fake)
	test.Tap(u.ctl.Generate)
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
}
