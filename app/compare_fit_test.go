package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"kleinbild/engine/imageio"
)

// Issue 36 defect 2: Compare opened taller than the screen at every size (1100×1508 at
// 1366×768), its Wipe switch and Swap off-screen: the long settings under each side made
// the window's least size that tall. Its least size must fit the window it opens at, with
// the Wipe switch and Swap inside it.
func TestCompareFitsTheScreen(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a matte painting of a lighthouse on a cliff at dusk, ", 12)
	for _, name := range []string{"a.png", "b.png"} {
		writeTestPNG(t, dir, name, 96, 64, &imageio.Metadata{Prompt: long, NegativePrompt: long, Seed: 7, Width: 96, Height: 64,
			Steps: 4, Schedule: "flux2", Model: "flux2-klein-4b", Variant: "distilled", Duration: 12 * time.Second})
	}
	h := newHarness(t, data, tinyModel(t), newFakeGen().open)
	u := h.ui
	for _, screen := range []fyne.Size{fyne.NewSize(1366, 768), fyne.NewSize(1024, 600)} {
		u.opts.ScreenSize = func() fyne.Size { return screen }
		u.gal.openCompare(h.at(0), h.at(1))
		c := u.gal.cmp
		h.waitFor("both images to load", 10*time.Second, func() bool { return c.images[0].Image != nil && c.images[1].Image != nil })
		size := c.win.Canvas().Size()
		if min := c.win.Content().MinSize(); min.Height > size.Height || min.Width > size.Width {
			t.Errorf("on a %v screen Compare opens at %v but needs %v", screen, size, min)
		}
		for _, o := range []fyne.CanvasObject{c.wipeOn, findButton(c.win.Content(), "Swap sides")} {
			p := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
			if end := p.Add(o.Size()); p.X < 0 || p.Y < 0 || end.X > size.Width || end.Y > size.Height {
				t.Errorf("on a %v screen %T lies at %v–%v, outside the window %v", screen, o, p, end, size)
			}
		}
		c.win.Close()
	}
}
