package form

import (
	"time"

	"kleinbild/app/settings"
	"kleinbild/app/widgets"
)

// SaveDelay is the pause in editing after which the form is written.
const SaveDelay = 400 * time.Millisecond

// WatchForm remembers the form whenever the user edits it (called once the remembered
// settings are in the controls, so restoring them writes nothing).
func (c *Controls) WatchForm() {
	for _, e := range []*widgets.ShortcutEntry{c.Prompt, c.Width, c.Height, c.Steps, c.Seed} {
		prev := e.OnChanged
		e.OnChanged = func(s string) {
			if prev != nil {
				prev(s)
			}
			c.FormChanged()
		}
	}
	prevG := c.guidance.OnChanged
	c.guidance.OnChanged = func(v float64) {
		if prevG != nil {
			prevG(v)
		}
		c.FormChanged()
	}
	prevS := c.schedule.OnChanged
	c.schedule.OnChanged = func(v string) {
		if prevS != nil {
			prevS(v)
		}
		c.FormChanged()
	}
	c.formWatched = true
}

// formSettings is the remembered settings (sh.Settings) with the form as it stands,
// valid or not: fields that do not hold a usable value keep their remembered one.
func (c *Controls) formSettings() settings.Settings {
	s := c.sh.Settings
	s.Settings = c.settings(s.Settings)
	s.SeedLocked = c.seedLocked
	s.FormModel = c.Model.ModelDir()
	s.Count = c.countValue()
	return s
}

// FormChanged remembers the form after an edit (UI goroutine). The file is written after
// a short pause in editing, and at the latest when the UI closes.
func (c *Controls) FormChanged() {
	if !c.formWatched || c.sh.Life.Err() != nil {
		return
	}
	c.sh.Settings = c.formSettings()
	s := c.sh.Settings
	c.sh.Store.Pend(s, func() {
		if c.formTimer == nil {
			c.formTimer = time.AfterFunc(SaveDelay, c.FlushForm)
		} else {
			c.formTimer.Reset(SaveDelay)
		}
	})
}

// FlushForm writes the pending settings, if any; safe from any goroutine.
func (c *Controls) FlushForm() {
	c.sh.Store.WithLock(func() {
		if c.formTimer != nil {
			c.formTimer.Stop()
		}
	})
	if err := c.sh.Store.Write(); err != nil {
		c.sh.Post(func() { c.sh.ShowError(err) })
	}
}
