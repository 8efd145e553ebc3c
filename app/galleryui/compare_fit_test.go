package galleryui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// Issue 36 defect 2: Compare opened taller than the screen at every size (1100×1508 at
// 1366×768), its Wipe switch and Swap off-screen: the long settings under each side made
// the window's least size that tall. Its least size must fit the window it opens at, with
// the Wipe switch and Swap inside it.
func TestCompareFitsTheScreen(t *testing.T) {
	h := compareHarness(t)
	u := h.ui
	for _, screen := range []fyne.Size{fyne.NewSize(1366, 768), fyne.NewSize(1024, 600)} {
		u.ScreenSize = func() fyne.Size { return screen }
		u.gal.openCompare(h.at(0), h.at(1))
		c := u.gal.cmp
		h.waitFor("both images to load", 10*time.Second, func() bool { return c.Parts().Images[0].Image != nil && c.Parts().Images[1].Image != nil })
		size := c.Parts().Win.Canvas().Size()
		if min := c.Parts().Win.Content().MinSize(); min.Height > size.Height || min.Width > size.Width {
			t.Errorf("on a %v screen Compare opens at %v but needs %v", screen, size, min)
		}
		for _, o := range []fyne.CanvasObject{c.Parts().WipeOn, findButton(c.Parts().Win.Content(), "Swap sides")} {
			p := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
			if end := p.Add(o.Size()); p.X < 0 || p.Y < 0 || end.X > size.Width || end.Y > size.Height {
				t.Errorf("on a %v screen %T lies at %v–%v, outside the window %v", screen, o, p, end, size)
			}
		}
		c.Parts().Win.Close()
	}
}

// compareHarness is a UI over a gallery of two 96×64 images with long prompts.
func compareHarness(t *testing.T) *harness {
	t.Helper()
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a matte painting of a lighthouse on a cliff at dusk, ", 12)
	for _, name := range []string{"a.png", "b.png"} {
		writeTestPNG(t, dir, name, 96, 64, &imageio.Metadata{
			Settings: schema.Settings{Prompt: long, NegativePrompt: long, Seed: 7, Width: 96, Height: 64, Steps: 4, Schedule: "flux2"},
			Model:    "flux2-klein-4b",
			Variant:  "distilled",
			Duration: 12 * time.Second,
		})
	}
	return newHarness(t, data, true)
}

// Issue 36 defect 16: the Wipe slider spanned the window, not the picture, and its first
// and last quarters did nothing. Its track lies under the picture, its thumb under the
// divider; zoomed in past the window's edges, it keeps to the window.
func TestWipeSliderUnderThePicture(t *testing.T) {
	h := compareHarness(t)
	g := &h.ui.gal
	g.openCompare(h.at(0), h.at(1))
	c := g.cmp
	h.waitFor("both images to load", 10*time.Second, func() bool { return c.Parts().Images[0].Image != nil && c.Parts().Images[1].Image != nil })
	c.Parts().Win.Resize(fyne.NewSize(800, 500))
	test.Tap(c.Parts().WipeOn)
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject
	inset := c.Parts().TrackInset
	for _, v := range []float64{0.1, 0.9} {
		c.Parts().Split.SetValue(v)
		from, to := c.Parts().Wipe.PictureSpan()
		w0, s0 := abs(c.Parts().Wipe).X, abs(c.Parts().Split).X
		if to-from > 0.9*c.Parts().Wipe.Size().Width {
			t.Fatalf("the fitted picture spans %v..%v of %v: the test needs one narrower than the window", from, to, c.Parts().Wipe.Size().Width)
		}
		// The divider snaps to the picture's pixel under the thumb: at most one to its left.
		thumb := s0 + inset + float32(v)*(c.Parts().Split.Size().Width-2*inset)
		scale, _, _ := c.Parts().Wipe.View()
		if div := w0 + c.Parts().Wipe.OtherFrom(); thumb < div-1 || thumb > div+scale+1 {
			t.Errorf("slider at %v: its thumb at x %v, the divider at %v (picture %v..%v)", v, thumb, div, w0+from, w0+to)
		}
	}
	for range 4 {
		c.Parts().Wipe.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(300, 200)}, Scrolled: fyne.Delta{DY: 10}})
	}
	if x, end := abs(c.Parts().Split).X, abs(c.Parts().Split).X+c.Parts().Split.Size().Width; x < 0 || end > c.Parts().Win.Canvas().Size().Width {
		t.Errorf("zoomed in, the slider spans %v..%v of a window %v wide", x, end, c.Parts().Win.Canvas().Size().Width)
	}
}
