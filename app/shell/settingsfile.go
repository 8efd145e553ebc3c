package shell

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"kleinbild/app/settings"
)

// SettingsFile writes the settings file. Writes are serialised and each writes the
// newest settings pending, so the file ends up with the last ones given.
type SettingsFile struct {
	Path    string
	mu      sync.Mutex // guards pending (and what pend's callers do under it)
	pending *settings.Settings
	writeMu sync.Mutex // serialises writes

	// ReadOnly drops the settings instead of writing them (a read-only window).
	ReadOnly bool
}

// Pend makes s the settings to write next and runs locked, if not nil, under the lock.
func (f *SettingsFile) Pend(s settings.Settings, locked func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = &s
	if locked != nil {
		locked()
	}
}

// WithLock runs fn under the lock that guards the pending settings.
func (f *SettingsFile) WithLock(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// Write saves the pending settings, if any (any goroutine).
func (f *SettingsFile) Write() error {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	f.mu.Lock()
	p := f.pending
	f.pending = nil
	f.mu.Unlock()
	if p == nil || f.ReadOnly {
		return nil // a later call's settings were written already, or nothing is
	}
	if err := settings.Save(f.Path, *p); err != nil {
		return fmt.Errorf("settings could not be saved: %w", err)
	}
	return nil
}

// Remember saves s in the background (UI goroutine); see SettingsFile.
func (sh *Shell) Remember(s settings.Settings) {
	sh.Store.Pend(s, nil)
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		if err := sh.Store.Write(); err != nil {
			sh.Post(func() { sh.ShowError(err) })
		}
	}()
}

// UnreadableNotice names the unreadable gallery files (the first few and a count of the
// rest) unless this same set was reported before; it updates sh.Settings to remember it.
func (sh *Shell) UnreadableNotice(files []string) string {
	files = slices.Sorted(slices.Values(files))
	set := strings.Join(files, "/")
	if set == sh.Settings.ReportedUnreadable {
		return ""
	}
	sh.Settings.ReportedUnreadable = set
	sh.Remember(sh.Settings)
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

// RememberViewed keeps the gallery image shown in the viewer for the next start.
func (sh *Shell) RememberViewed(file string) {
	if sh.Settings.LastViewed == file {
		return
	}
	sh.Settings.LastViewed = file
	sh.Remember(sh.Settings)
}

// LoadSaved reads the settings file once no settings wait to be written, under the write
// lock (tests); ok is false while some wait.
func (f *SettingsFile) LoadSaved() (s settings.Settings, ok bool, err error) {
	f.mu.Lock()
	pending := f.pending != nil
	f.mu.Unlock()
	if pending {
		return s, false, nil
	}
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	s, err = settings.Load(f.Path)
	return s, true, err
}
