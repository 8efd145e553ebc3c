package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// galleryHarness starts the UI over a gallery holding one image per prompt (the last
// prompt newest).
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
	return newHarness(t, data, "", newFakeGen().open)
}

// The gallery survives a restart, and a generation records the image it was made from
// (the viewer's lineage row is tested in app/galleryui).
func TestGallerySurvivesRestartAndShowsLineage(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h1 := newHarness(t, data, tinyModel(t), fake.open)
	first := h1.generate("an old lighthouse")
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	h1.close()

	h2 := newHarness(t, data, tinyModel(t), fake.open)
	u := h2.ui
	if u.Gallery.Len() != 1 || len(u.gal.Visible) != 1 {
		t.Fatalf("after restart the gallery has %d images", u.Gallery.Len())
	}
	e, _ := u.Gallery.At(0)
	if e.Meta.Prompt != "an old lighthouse" || e.Meta.Seed != first.Entry.Meta.Seed || e.SHA256 != first.Entry.SHA256 {
		t.Errorf("restored entry %+v", e)
	}
	if u.gal.Empty.Visible() {
		t.Error("gallery still shows its empty hint")
	}

	// Select it in the grid; use it as a reference; the new image is its child.
	u.gal.Grid.Select(0)
	if !u.view.ShownOK || u.view.Shown.File != e.File {
		t.Fatal("selecting a gallery cell did not show it")
	}
	h2.waitFor("the full image", 5*time.Second, func() bool { return u.view.Image.Image != nil })
	test.Tap(findButton(u.view.Actions, "Use as reference"))
	if len(u.refs.RefPaths()) != 1 || u.refs.RefPaths()[0] != u.Gallery.Path(e) {
		t.Fatalf("refs %v", u.refs.RefPaths())
	}
	child := h2.generate("the lighthouse at night")
	if child.Err != nil {
		t.Fatal(child.Err)
	}
	if ps := u.Gallery.Parents(child.Entry); len(ps) != 1 || ps[0].File != e.File {
		t.Errorf("parents of the new image: %+v", ps)
	}
	if cs := u.Gallery.Children(e); len(cs) != 1 || cs[0].File != child.Entry.File {
		t.Errorf("children of the first image: %+v", cs)
	}

	// Reuse settings from the first image.
	u.gal.SelectEntry(e.File, nil)
	test.Tap(findButton(u.view.Actions, "Reuse settings"))
	if u.ctl.Prompt.Text != "an old lighthouse" || u.ctl.Seed.Text != strconv.FormatUint(e.Meta.Seed, 10) || !u.ctl.SeedIsLocked() {
		t.Errorf("reuse settings: prompt %q seed %q", u.ctl.Prompt.Text, u.ctl.Seed.Text)
	}
}
