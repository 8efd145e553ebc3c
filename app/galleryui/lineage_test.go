package galleryui

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// The viewer's lineage row shows the gallery images an image was made from, and those it
// was used in.
func TestViewerShowsLineage(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	parent := writeTestPNG(t, dir, "parent.png", 48, 32, &imageio.Metadata{
		Settings: schema.Settings{Prompt: "an old lighthouse", Seed: 1, Width: 48, Height: 32}, Created: t0,
	})
	sum, err := imageio.SHA256File(parent)
	if err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, dir, "child.png", 48, 32, &imageio.Metadata{
		Settings: schema.Settings{Prompt: "the lighthouse at night", Seed: 2, Width: 48, Height: 32, References: []string{parent}},
		Hashes:   map[string]string{parent: sum},
		Created:  t0.Add(time.Minute),
	})
	writeTestPNG(t, dir, "alone.png", 48, 32, nil)
	h := newHarness(t, data, true)
	u := h.ui
	for _, c := range []struct {
		file, label string
	}{{"child.png", "Made from"}, {"parent.png", "Used in"}} {
		u.gal.SelectEntry(c.file, nil)
		h.settle()
		l := u.view.lineage
		if len(l.Objects) != 2 || !l.Visible() { // the label + one thumbnail
			t.Fatalf("%s: lineage row has %d objects (shown %v)", c.file, len(l.Objects), l.Visible())
		}
		if got := labelText(l.Objects[0]); got != c.label {
			t.Errorf("%s: lineage row says %q, want %q", c.file, got, c.label)
		}
	}
	u.gal.SelectEntry("alone.png", nil)
	h.settle()
	if u.view.lineage.Visible() {
		t.Errorf("an image without relatives shows a lineage row of %d objects", len(u.view.lineage.Objects))
	}
}
