package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestRandModelAndBench writes a tiny random model with the randmodel command and benchmarks
// it with the bench command (one 32² size, three generations), checking the JSON it writes.
func TestRandModelAndBench(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	code, out, errOut := run(t, "randmodel", "-o", dir, "--variant", "tiny", "--seed", "3", "--tokenizer", golden.TinyModel(t), "-q")
	if code != 0 {
		t.Fatalf("randmodel: exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("randmodel -q printed %q", out)
	}
	for _, rel := range []string{"model_index.json", "text_encoder/model.safetensors.index.json", "transformer/diffusion_pytorch_model.safetensors"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Error(err)
		}
	}

	js := filepath.Join(t.TempDir(), "bench.json")
	code, out, errOut = run(t, "bench", "--model", dir, "--sizes", "32", "--steps", "1", "--peak-reps", "0", "--json", js, "-q")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	for _, s := range []string{"32² new prompt", "32² second new prompt", "32² same prompt", "encode", "step 1", "decode", "save", "total"} {
		if !strings.Contains(out, s) {
			t.Errorf("bench table lacks %q:\n%s", s, out)
		}
	}
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Runs []struct {
			PromptCached bool `json:"prompt_cached"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 3 || rep.Runs[0].PromptCached || rep.Runs[1].PromptCached || !rep.Runs[2].PromptCached {
		t.Errorf("runs %+v: want two new prompts, then a cached one", rep.Runs)
	}
}

func TestRandModelAndBenchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"randmodel", "--variant", "tiny"},                                            // no -o, no --tokenizer
		{"randmodel", "-o", t.TempDir(), "--variant", "klein-2b", "--tokenizer", "x"}, // unknown variant
		{"bench", "--sizes", "250"},                                                   // not a multiple of 16
		{"bench", "--model", t.TempDir(), "--steps", "0"},
		{"bench", "--backend", "purego", "--profile", "--model", t.TempDir()}, // no GPU kernels to time
	} {
		if code, _, errOut := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut)
		}
	}
	// Without --model and --tokenizer, a missing cached model is a usage error naming it.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, _, errOut := run(t, "bench", "--variant", "tiny")
	if code != 2 || !strings.Contains(errOut, "--tokenizer") {
		t.Errorf("bench without a cached model: exit %d, %s", code, errOut)
	}
}
