package form

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/shell"
	"kleinbild/engine"
	"kleinbild/resources"
)

// checkSeed reads the seed field: given is false when it is empty (a random seed), ok
// false (with the field's error shown) when it is not a number from 0 to 2⁶⁴−1.
func (c *Controls) checkSeed() (seed uint64, given, ok bool) {
	text := strings.TrimSpace(c.Seed.Text)
	if text == "" {
		shell.SetFieldError(c.seedErr, "")
		return 0, false, true
	}
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		shell.SetFieldError(c.seedErr, "The seed must be a whole number from 0 to 18446744073709551615 (or empty for a random one).")
		return 0, false, false
	}
	shell.SetFieldError(c.seedErr, "")
	return v, true, true
}

// seedEdited follows a change of the seed field: a typed number is the seed used (the
// field switches to kept), an emptied field means a new random seed per image.
func (c *Controls) seedEdited() {
	_, given, ok := c.checkSeed()
	if ok && given != c.seedLocked {
		c.setSeedLocked(given)
	}
}

// toggleSeedLocked is the lock button: a kept seed becomes random (the field empties and
// says "random"), a random one is kept (the last seed used, or a new one, fills the field).
func (c *Controls) toggleSeedLocked() {
	if c.seedLocked {
		c.setSeedLocked(false)
		c.Seed.SetText("")
		return
	}
	seed := c.lastSeed
	if !c.lastSeedSet {
		seed = randomSeed()
	}
	c.Seed.SetText(strconv.FormatUint(seed, 10))
	c.setSeedLocked(true)
}

// UsedRandomSeed shows the random seed a run picked in the empty field's placeholder, so
// that random stays a visible state and the seed can still be read.
func (c *Controls) UsedRandomSeed(seed uint64) {
	c.lastSeed, c.lastSeedSet = seed, true
	c.Seed.SetPlaceHolder(randomPlaceholder(seed, true))
}

// SeedIsLocked reports whether the seed field is locked.
func (c *Controls) SeedIsLocked() bool { return c.seedLocked }

// randomPlaceholder is the seed field's text while it is empty (random).
func randomPlaceholder(last uint64, known bool) string {
	if !known {
		return "random"
	}
	return fmt.Sprintf("random, last %d", last)
}

// setSeedLocked switches between keeping the seed (locked) and a new random one per run.
func (c *Controls) setSeedLocked(locked bool) {
	c.seedLocked = locked
	c.lock.Tip = lockTip(locked)
	if locked {
		c.lock.SetIcon(theme.NewThemedResource(resources.Lock))
		c.lock.Importance = widget.HighImportance
	} else {
		c.lock.SetIcon(theme.NewThemedResource(resources.LockOpen))
		c.lock.Importance = widget.MediumImportance
	}
	c.lock.Refresh()
	if c.keptSeed != nil && c.keptSeed.Visible() != locked {
		if locked {
			c.keptSeed.Show()
		} else {
			c.keptSeed.Hide()
		}
		c.Box.Refresh() // Generate makes room for it, or takes it back
	}
	c.FormChanged()
}

// ReuseSeed puts seed in the seed field and locks it.
func (c *Controls) ReuseSeed(seed uint64) {
	c.Seed.SetText(strconv.FormatUint(seed, 10))
	c.setSeedLocked(true)
}

// randomSeed picks a new seed, as every front end does (engine.RandomSeed).
func randomSeed() uint64 { return engine.RandomSeed() }

// lockTip names what the seed lock button does.
func lockTip(locked bool) string {
	if locked {
		return "Seed kept: press for a new random seed per image"
	}
	return "Random: press to keep a seed for the next images"
}
