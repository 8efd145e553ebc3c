package app

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"kleinbild/app/settings"
	"kleinbild/app/widgets"
)

// settingsFile writes the settings file. Writes are serialised and each writes the
// newest settings pending, so the file ends up with the last ones given.
type settingsFile struct {
	path    string
	mu      sync.Mutex // guards pending (and what pend's callers do under it)
	pending *settings.Settings
	writeMu sync.Mutex // serialises writes

	// readOnly drops the settings instead of writing them (a read-only window).
	readOnly bool
}

// pend makes s the settings to write next and runs locked, if not nil, under the lock.
func (f *settingsFile) pend(s settings.Settings, locked func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = &s
	if locked != nil {
		locked()
	}
}

// withLock runs fn under the lock that guards the pending settings.
func (f *settingsFile) withLock(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// write saves the pending settings, if any (any goroutine).
func (f *settingsFile) write() error {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	f.mu.Lock()
	p := f.pending
	f.pending = nil
	f.mu.Unlock()
	if p == nil || f.readOnly {
		return nil // a later call's settings were written already, or nothing is
	}
	if err := settings.Save(f.path, *p); err != nil {
		return fmt.Errorf("settings could not be saved: %w", err)
	}
	return nil
}

// remember saves s in the background (UI goroutine); see settingsFile.
func (sh *shell) remember(s settings.Settings) {
	sh.store.pend(s, nil)
	sh.bg.Add(1)
	go func() {
		defer sh.bg.Done()
		if err := sh.store.write(); err != nil {
			sh.post(func() { sh.showError(err) })
		}
	}()
}

// unreadableNotice names the unreadable gallery files (the first few and a count of the
// rest) unless this same set was reported before; it updates sh.settings to remember it.
func (sh *shell) unreadableNotice(files []string) string {
	files = slices.Sorted(slices.Values(files))
	set := strings.Join(files, "/")
	if set == sh.settings.ReportedUnreadable {
		return ""
	}
	sh.settings.ReportedUnreadable = set
	sh.remember(sh.settings)
	if len(files) == 0 {
		return ""
	}
	const few = 5
	names := strings.Join(files[:min(len(files), few)], ", ")
	if len(files) > few {
		names += fmt.Sprintf(" and %d more", len(files)-few)
	}
	return fmt.Sprintf("%d file(s) in the gallery folder could not be read and are not shown: %s", len(files), names)
}

// formSaveDelay is the pause in editing after which the form is written.
const formSaveDelay = 400 * time.Millisecond

// watchForm remembers the form whenever the user edits it (called once the remembered
// settings are in the controls, so restoring them writes nothing).
func (c *controls) watchForm() {
	for _, e := range []*widgets.ShortcutEntry{c.prompt, c.width, c.height, c.steps, c.seed} {
		prev := e.OnChanged
		e.OnChanged = func(s string) {
			if prev != nil {
				prev(s)
			}
			c.formChanged()
		}
	}
	prevG := c.guidance.OnChanged
	c.guidance.OnChanged = func(v float64) {
		if prevG != nil {
			prevG(v)
		}
		c.formChanged()
	}
	prevS := c.schedule.OnChanged
	c.schedule.OnChanged = func(v string) {
		if prevS != nil {
			prevS(v)
		}
		c.formChanged()
	}
	c.formWatched = true
}

// formSettings is the remembered settings (sh.settings) with the form as it stands,
// valid or not: fields that do not hold a usable value keep their remembered one.
func (c *controls) formSettings() settings.Settings {
	s := c.sh.settings
	s.Settings = c.settings(s.Settings)
	s.SeedLocked = c.seedLocked
	s.FormModel = c.model.modelDir()
	s.Count = c.countValue()
	return s
}

// formChanged remembers the form after an edit (UI goroutine). The file is written after
// a short pause in editing, and at the latest when the UI closes.
func (c *controls) formChanged() {
	if !c.formWatched || c.sh.life.Err() != nil {
		return
	}
	c.sh.settings = c.formSettings()
	s := c.sh.settings
	c.sh.store.pend(s, func() {
		if c.formTimer == nil {
			c.formTimer = time.AfterFunc(formSaveDelay, c.flushForm)
		} else {
			c.formTimer.Reset(formSaveDelay)
		}
	})
}

// flushForm writes the pending settings, if any; safe from any goroutine.
func (c *controls) flushForm() {
	c.sh.store.withLock(func() {
		if c.formTimer != nil {
			c.formTimer.Stop()
		}
	})
	if err := c.sh.store.write(); err != nil {
		c.sh.post(func() { c.sh.showError(err) })
	}
}
