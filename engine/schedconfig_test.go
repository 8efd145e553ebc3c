package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// withScheduler assembles the tiny model with its own scheduler_config.json (text), the
// other parts linked from the golden folder.
func withScheduler(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	tiny := golden.TinyModel(t)
	for _, part := range []string{"text_encoder", "tokenizer", "transformer", "vae", "model_index.json"} {
		abs, err := filepath.Abs(filepath.Join(tiny, part))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, part)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "scheduler"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scheduler", "scheduler_config.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSchedulerConfigRead: scheduler_config.json was never read, so "[]", "null" and
// use_karras_sigmas gave the default image. Now Inspect and Open refuse them naming the
// file and the field, and a static shift changes the schedule used.
func TestSchedulerConfigRead(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`[]`, "an object"},
		{`null`, "an object"},
		{`{"use_dynamic_shifting": true, "use_karras_sigmas": true}`, `"use_karras_sigmas" is true`},
		{`{"use_dynamic_shifting": true, "time_shift_type": "linear"}`, `"time_shift_type"`},
	} {
		dir := withScheduler(t, tc.text)
		_, err := Inspect(dir)
		m, openErr := Open(dir, backends.Default(), Options{})
		if openErr == nil {
			m.Close()
		}
		for _, e := range []error{err, openErr} {
			if e == nil || !strings.Contains(e.Error(), filepath.Join("scheduler", "scheduler_config.json")) || !strings.Contains(e.Error(), tc.want) {
				t.Errorf("%s: error %v, want one naming scheduler_config.json and containing %q", tc.text, e, tc.want)
			}
		}
	}

	// One step from the same seed: the golden (dynamic) config and a static shift of 1
	// start at sigma 1 but step to different sigmas, so the latents differ.
	latents := func(dir string) []float32 {
		m := openModel(t, dir)
		var out []float32
		req := Request{Settings: Settings{Prompt: "a red cube", Width: 32, Height: 32, Steps: 2, Seed: 7},
			Dump: func(name string, _ []int, data []float32) error {
				if name == "latents_step0" {
					out = slices.Clone(data)
				}
				return nil
			}}
		if _, err := m.Generate(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		return out
	}
	golden, err := os.ReadFile(filepath.Join(golden.TinyModel(t), "scheduler", "scheduler_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	dynamic := latents(withScheduler(t, string(golden)))
	static := latents(withScheduler(t, `{"use_dynamic_shifting": false}`))
	if len(dynamic) == 0 || slices.Equal(dynamic, static) {
		t.Errorf("static shift 1 gave the same latents as dynamic shifting (%d values)", len(dynamic))
	}
}
