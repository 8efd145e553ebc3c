package run

import (
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/jobs"
	"kleinbild/engine"
)

// TestMissingAdaptersOpenedAtRun: a kept job's missing adapter is opened when the job runs,
// and one still missing fails the job with its name.
func TestMissingAdaptersOpenedAtRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "later.safetensors")
	j := jobs.New(engine.Request{Settings: engine.Settings{Prompt: "p"}}, 1)
	j.Missing = []jobs.StoredAdapter{{Path: path, Strength: 0.5}}
	if _, err := withMissingAdapters(j); err == nil || !strings.Contains(err.Error(), "later.safetensors") {
		t.Fatalf("still missing: %v", err)
	}
	uitest.WriteLoRA(t, dir, "later.safetensors", nil, "")
	st, err := withMissingAdapters(j)
	if err != nil || len(st) != 1 || st[0].Strength != 0.5 || st[0].Adapter.Path != path {
		t.Fatalf("back: %+v, %v", st, err)
	}
}
