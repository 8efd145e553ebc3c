package form

import (
	"strconv"
	"strings"
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
		if c.keptSeed.Visible() {
			t.Fatal("the kept seed shows while the seed is random")
		}
		c.ReuseSeed(4242)
		c.Scroll.ScrollToTop()
		requireShown(t, w, "the kept seed", c.keptSeed)
		requireShown(t, w, "Generate", c.Generate)
		test.Tap(c.keptSeed)
		if c.SeedIsLocked() || c.keptSeed.Visible() {
			t.Errorf("%v: after pressing it the seed is locked %v, the sign shown %v", size, c.SeedIsLocked(), c.keptSeed.Visible())
		}
	}
}

// TestSeedFieldAndLock: a typed seed is kept (the field locks), an emptied field is
// random; the lock makes a kept seed random (the field empties and says so) and keeps a
// random one (the last run's, shown in the placeholder), and the dice draws a new kept
// one. (That a run uses the typed seed and shows the random one it drew is root app's
// TestTypedSeedIsUsed.)
func TestSeedFieldAndLock(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	c.Seed.SetText("")
	if c.SeedIsLocked() {
		t.Fatal("an empty seed field shows as kept")
	}
	test.Type(c.Seed, "42")
	if !c.SeedIsLocked() || c.Seed.Text != "42" {
		t.Errorf("a typed seed does not show as kept: field %q, locked %v", c.Seed.Text, c.SeedIsLocked())
	}
	test.Tap(c.lock) // back to random
	if c.Seed.Text != "" || c.SeedIsLocked() || !strings.Contains(c.Seed.PlaceHolder, "random") {
		t.Fatalf("random: field %q placeholder %q locked %v", c.Seed.Text, c.Seed.PlaceHolder, c.SeedIsLocked())
	}
	const used = 3806188289
	c.UsedRandomSeed(used)
	if c.Seed.Text != "" || c.SeedIsLocked() || !strings.Contains(c.Seed.PlaceHolder, strconv.FormatUint(used, 10)) {
		t.Errorf("after a random run: field %q placeholder %q locked %v, seed used %d", c.Seed.Text, c.Seed.PlaceHolder, c.SeedIsLocked(), used)
	}
	test.Tap(c.lock) // keep the last seed
	if c.Seed.Text != strconv.FormatUint(used, 10) || !c.SeedIsLocked() {
		t.Errorf("keeping: field %q (locked %v), want %d", c.Seed.Text, c.SeedIsLocked(), used)
	}
	test.Tap(c.dice) // a new one, still kept
	if c.Seed.Text == strconv.FormatUint(used, 10) || !c.SeedIsLocked() {
		t.Errorf("dice: field %q, locked %v", c.Seed.Text, c.SeedIsLocked())
	}
	if _, given, ok := c.checkSeed(); !ok || !given {
		t.Errorf("dice: the field %q is no seed", c.Seed.Text)
	}
	c.Seed.SetText("")
	if c.SeedIsLocked() {
		t.Error("an emptied seed field stays kept")
	}
}
