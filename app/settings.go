package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"

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
