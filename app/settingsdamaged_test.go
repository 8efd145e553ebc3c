package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedSettingsKeptWithBanner: a settings.json with one typo (a trailing comma) is
// kept as settings.json.unreadable, which the banner names, and survives the edits of the
// session; it was silently replaced by the defaults at the first edit, losing the model
// folder, prompt, LoRA folder and adapters (issue 37 item 3).
func TestDamagedSettingsKeptWithBanner(t *testing.T) {
	data := t.TempDir()
	path := filepath.Join(data, "settings.json")
	typo := []byte(`{"prompt": "a fox in the snow", "lora_dir": "/loras", "adapters": [{"path": "/loras/a.safetensors", "strength": 1}],}`)
	if err := os.WriteFile(path, typo, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, data, "", nil)
	if msg := h.ui.ErrorText(); !strings.Contains(msg, "settings.json.unreadable") {
		t.Errorf("banner %q: want it to say where the damaged file was kept", msg)
	}
	h.ui.ctl.Prompt.SetText("a new prompt")
	h.settle()
	h.close() // saves the settings
	if got, err := os.ReadFile(path + ".unreadable"); err != nil || string(got) != string(typo) {
		t.Errorf("settings.json.unreadable holds %q (%v), want the damaged file", got, err)
	}
	if got, err := os.ReadFile(path); err != nil || !strings.Contains(string(got), "a new prompt") {
		t.Errorf("settings.json after the session: %q %v", got, err)
	}
}
