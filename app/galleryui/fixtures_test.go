package galleryui

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// sizedGallery writes a data folder whose gallery holds one image with Kleinbild settings
// (prompt, seed i+1) per size, each a minute newer than the one before, and returns it.
func sizedGallery(t *testing.T, prompt string, sizes ...[2]int) string {
	t.Helper()
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, sz := range sizes {
		writeTestPNG(t, dir, fmt.Sprintf("img-%02d.png", i), sz[0], sz[1], &imageio.Metadata{
			Settings: schema.Settings{Prompt: prompt, Seed: uint64(i + 1), Width: sz[0], Height: sz[1], Steps: 4},
			Created:  t0.Add(time.Duration(i) * time.Minute),
		})
	}
	return data
}

// labelText is the text of o when it is a label, else "".
func labelText(o fyne.CanvasObject) string {
	if l, ok := o.(*widget.Label); ok {
		return l.Text
	}
	return ""
}
