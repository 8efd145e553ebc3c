package form

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// Issue 36 item 24: after Reuse settings (or Reuse seed) the kept seed shows beside
// Generate, in view however the form is scrolled, and pressing it draws random seeds
// again. (Before, the only sign was the lock by the seed field, below the fold at
// 1024×600, and later runs silently reused the seed.) Root app's
// TestKeptSeedShowsByGenerate checks that Generate's row is in view in the whole window.
func TestKeptSeedShowsByGenerate(t *testing.T) {
	for _, size := range []fyne.Size{fyne.NewSize(1008, 552), fyne.NewSize(1008, 440)} {
		c, _, w := testControls(t, size)
		if c.KeptSeed.Visible() {
			t.Fatal("the kept seed shows while the seed is random")
		}
		c.ReuseSeed(4242)
		c.Scroll.ScrollToTop()
		requireShown(t, w, "the kept seed", c.KeptSeed)
		requireShown(t, w, "Generate", c.Generate)
		test.Tap(c.KeptSeed)
		if c.SeedIsLocked() || c.KeptSeed.Visible() {
			t.Errorf("%v: after pressing it the seed is locked %v, the sign shown %v", size, c.SeedIsLocked(), c.KeptSeed.Visible())
		}
	}
}
