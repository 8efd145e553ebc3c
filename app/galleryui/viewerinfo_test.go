package galleryui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// Issue 36 defect 22: the viewer's info line left out the negative prompt. It shows it
// when the image has one, and says nothing of one when it has none.
func TestViewerInfoShowsTheNegativePrompt(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, dir, "a.png", 48, 32, &imageio.Metadata{Settings: schema.Settings{Prompt: "a lighthouse", NegativePrompt: "blurry, fog", Seed: 3, Width: 48, Height: 32, Steps: 4}})
	writeTestPNG(t, dir, "b.png", 48, 32, &imageio.Metadata{Settings: schema.Settings{Prompt: "a harbour", Seed: 4, Width: 48, Height: 32, Steps: 4}})
	h := newHarness(t, data, true)
	u := h.ui
	for _, c := range []struct{ file, want string }{{"a.png", "Negative prompt: blurry, fog"}, {"b.png", ""}} {
		e, ok := u.Gallery.ByFile(c.file)
		if !ok {
			t.Fatalf("no gallery entry %s", c.file)
		}
		u.gal.SelectEntry(e.File, nil)
		h.waitShownImage(e)
		got := u.view.Details.Text
		if c.want != "" && !strings.Contains(got, c.want) || c.want == "" && strings.Contains(got, "Negative") {
			t.Errorf("%s: the info says %q, want %q in it", c.file, got, c.want)
		}
	}
}
