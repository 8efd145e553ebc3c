package run

import (
	"path/filepath"
	"slices"
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

// TestRestoredQueueIsPaused: the jobs kept from the last session come back before any
// queued meanwhile, paused with a row that says where they come from, and what could not
// be restored is said in the banner. (The whole way through a restart of the window is root
// app's TestQueueReorderSurviveRestartCancelAll.)
func TestRestoredQueueIsPaused(t *testing.T) {
	rn := queueRunner(t)
	q := rn.Queue
	meanwhile := jobs.New(engine.Request{Settings: engine.Settings{Prompt: "meanwhile"}}, 1)
	q.Push(meanwhile)
	first := jobs.New(engine.Request{Settings: engine.Settings{Prompt: "first"}}, 1)
	second := jobs.New(engine.Request{Settings: engine.Settings{Prompt: "second"}}, 2)
	rn.restoreQueue([]*jobs.Job{first, second}, []string{"job 3: its prompt is too long"}, nil)
	if !slices.Equal(q.Jobs, []*jobs.Job{first, second, meanwhile}) {
		t.Fatalf("restored queue %v", q.Jobs)
	}
	if !q.Paused || q.PausedText.Text != restoredPaused {
		t.Errorf("restored queue: paused %v, %q", q.Paused, q.PausedText.Text)
	}
	if !strings.Contains(rn.sh.ErrorText(), "job 3: its prompt is too long") {
		t.Errorf("the job not restored is not said: banner %q", rn.sh.ErrorText())
	}
}
