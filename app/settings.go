package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"kleinbild/engine"
	"kleinbild/weights"
)

// settings is what the app remembers between runs (settings.json in the data folder).
type settings struct {
	ModelDir   string  `json:"model_dir,omitempty"`
	Prompt     string  `json:"prompt,omitempty"`
	Width      int     `json:"width,omitempty"`
	Height     int     `json:"height,omitempty"`
	Steps      int     `json:"steps,omitempty"`
	Guidance   float64 `json:"guidance,omitempty"`
	Schedule   string  `json:"schedule,omitempty"`
	Seed       uint64  `json:"seed,omitempty"`
	SeedLocked bool    `json:"seed_locked,omitempty"`
	// Count is the number of images per run (0 means 1).
	Count int `json:"count,omitempty"`
	// FormModel is the model folder the steps and guidance were set for; empty means
	// ModelDir (settings from before it was kept).
	FormModel string `json:"form_model,omitempty"`
	// ReportedUnreadable is the set of unreadable gallery files last reported (sorted names
	// joined by "/", which no file name contains), so the notice about them shows once
	// rather than on every start.
	ReportedUnreadable string `json:"reported_unreadable,omitempty"`
	// Device is the compute device chosen in the settings (a backends.Devices ID); empty is
	// automatic.
	Device string `json:"device,omitempty"`
	// HFToken is the Hugging Face token, kept only when the user asked to remember it.
	HFToken string `json:"hf_token,omitempty"`
	// DownloadDir and DownloadVariant name an unfinished model download to offer resuming.
	DownloadDir     string `json:"download_dir,omitempty"`
	DownloadVariant string `json:"download_variant,omitempty"`
}

// loadSettings reads path. A missing file gives zero settings and no error; a corrupt one
// gives zero settings and an error worth showing (the file is rewritten on the next save).
func loadSettings(path string) (settings, error) {
	var s settings
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read settings: %w", err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return settings{}, fmt.Errorf("settings file %s is damaged and was reset: %w", path, err)
	}
	return s, nil
}

// remember saves s in the background (UI goroutine). Writes are serialised and each
// writes the newest settings, so the file ends up with the last call's.
func (u *UI) remember(s settings) {
	u.saveMu.Lock()
	u.pendingSave = &s
	u.saveMu.Unlock()
	u.bg.Add(1)
	go func() {
		defer u.bg.Done()
		u.writeMu.Lock()
		defer u.writeMu.Unlock()
		u.saveMu.Lock()
		p := u.pendingSave
		u.pendingSave = nil
		u.saveMu.Unlock()
		if p == nil {
			return // a later goroutine's settings were written already
		}
		if err := saveSettings(u.settingsPath, *p); err != nil {
			u.post(func() { u.showError(fmt.Errorf("settings could not be saved: %w", err)) })
		}
	}()
}

// unreadableNotice names the unreadable gallery files (the first few and a count of the
// rest) unless this same set was reported before; it updates u.settings to remember it.
func (u *UI) unreadableNotice(files []string) string {
	files = slices.Sorted(slices.Values(files))
	set := strings.Join(files, "/")
	if set == u.settings.ReportedUnreadable {
		return ""
	}
	u.settings.ReportedUnreadable = set
	u.remember(u.settings)
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
func (u *UI) watchForm() {
	c := &u.ctl
	for _, e := range []*shortcutEntry{c.prompt, c.width, c.height, c.steps, c.seed} {
		prev := e.OnChanged
		e.OnChanged = func(s string) {
			if prev != nil {
				prev(s)
			}
			u.formChanged()
		}
	}
	prevG := c.guidance.OnChanged
	c.guidance.OnChanged = func(v float64) {
		if prevG != nil {
			prevG(v)
		}
		u.formChanged()
	}
	prevS := c.schedule.OnChanged
	c.schedule.OnChanged = func(v string) {
		if prevS != nil {
			prevS(v)
		}
		u.formChanged()
	}
	u.formWatched = true
}

// formSettings is u.settings with the form as it stands, valid or not: fields that do
// not hold a usable value keep their remembered one.
func (u *UI) formSettings() settings {
	c := &u.ctl
	s := u.settings
	if engine.ValidatePrompt(c.prompt.Text) == nil {
		s.Prompt = c.prompt.Text
	}
	if w, msg := parseSide("Width", c.width.Text); msg == "" {
		s.Width = w
	}
	if h, msg := parseSide("Height", c.height.Text); msg == "" {
		s.Height = h
	}
	if t := strings.TrimSpace(c.steps.Text); t == "" {
		s.Steps = 0
	} else if n, err := strconv.Atoi(t); err == nil && n > 0 {
		s.Steps = n
	}
	s.Guidance = c.guidance.Value
	s.Schedule = schedules[max(0, c.schedule.SelectedIndex())].value
	s.SeedLocked = c.seedLocked
	if n, err := strconv.ParseUint(strings.TrimSpace(c.seed.Text), 10, 64); err == nil {
		s.Seed = n
	}
	s.FormModel = u.modelDir
	s.Count = u.count()
	return s
}

// formChanged remembers the form after an edit (UI goroutine). The file is written after
// a short pause in editing, and at the latest when the UI closes.
func (u *UI) formChanged() {
	if !u.formWatched || u.life.Err() != nil {
		return
	}
	u.settings = u.formSettings()
	s := u.settings
	u.saveMu.Lock()
	defer u.saveMu.Unlock()
	u.pendingSave = &s
	if u.formTimer == nil {
		u.formTimer = time.AfterFunc(formSaveDelay, u.flushForm)
	} else {
		u.formTimer.Reset(formSaveDelay)
	}
}

// flushForm writes the pending settings, if any; safe from any goroutine.
func (u *UI) flushForm() {
	u.saveMu.Lock()
	if u.formTimer != nil {
		u.formTimer.Stop()
	}
	u.saveMu.Unlock()
	u.writeMu.Lock()
	defer u.writeMu.Unlock()
	u.saveMu.Lock()
	p := u.pendingSave
	u.pendingSave = nil
	u.saveMu.Unlock()
	if p == nil {
		return
	}
	if err := saveSettings(u.settingsPath, *p); err != nil {
		u.post(func() { u.showError(fmt.Errorf("settings could not be saved: %w", err)) })
	}
}

// saveSettings writes path atomically.
func saveSettings(path string, s settings) error {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	if s.HFToken != "" {
		// WriteAtomic keeps the file's permissions: make it private before the token goes in.
		if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return fmt.Errorf("save settings: %w", err)
		}
	}
	return weights.WriteAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
}
