package qwen3

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"kleinbild/gpu/gputest"
	"kleinbild/weights/golden"
)

// withLayers writes the tiny text encoder with config.json's num_hidden_layers set to n.
func withLayers(t *testing.T, n int) string {
	t.Helper()
	dir := modelDir(t, tinyTensors(t))
	var cfg map[string]any
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["num_hidden_layers"] = n
	delete(cfg, "layer_types") // one entry per layer
	text, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAbsurdLayerCount: num_hidden_layers 1,000,000,000 once asked for a 640 GB layer
// table, and 1000 (more than the 28 layers present) allocated them all before failing on
// a missing tensor. Both must fail at once, naming config.json and the field, with little
// memory.
func TestAbsurdLayerCount(t *testing.T) {
	for _, tc := range []struct {
		layers int
		want   string
	}{
		{1_000_000_000, "want 1..1024"},
		{1000, "the weights hold 28 layers"},
		{29, "the weights hold 28 layers"},
	} {
		dir := withLayers(t, tc.layers)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b := &gputest.Counting{Backend: testBackend()}
		e, err := Load(dir, b)
		runtime.ReadMemStats(&after)
		if err == nil {
			e.Close()
			t.Fatalf("%d layers: no error", tc.layers)
		}
		msg := err.Error()
		if !strings.Contains(msg, "config.json") || !strings.Contains(msg, `"num_hidden_layers"`) || !strings.Contains(msg, tc.want) {
			t.Errorf("%d layers: error %q should name config.json, num_hidden_layers and contain %q", tc.layers, msg, tc.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Errorf("%d layers: allocated %d bytes before failing", tc.layers, alloc)
		}
		// The work done before failing, counted rather than timed (a loaded machine must not
		// fail the test): no layer built, so no tensor made on the backend.
		if b.Tensors > 0 {
			t.Errorf("%d layers: %d tensors made on the backend before failing", tc.layers, b.Tensors)
		}
	}
}

// TestConfigBounds: every size field has an upper bound, and heads × head_dim is checked.
func TestConfigBounds(t *testing.T) {
	for field, v := range map[string]int{
		"vocab_size": 1 << 40, "hidden_size": 1 << 30, "intermediate_size": 1 << 30, "num_hidden_layers": 1025,
		"num_attention_heads": 1 << 20, "num_key_value_heads": 1 << 20, "head_dim": 1 << 40,
	} {
		p := writeConfig(t, editConfig(t, map[string]any{field: v}))
		_, err := LoadConfig(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), `"`+field+`"`) {
			t.Errorf("%s = %d: error %v, want one naming the file and the field", field, v, err)
		}
	}
	p := writeConfig(t, editConfig(t, map[string]any{"num_attention_heads": 1024, "num_key_value_heads": 8, "head_dim": 4096}))
	if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), `"head_dim"`) {
		t.Errorf("1024 heads of 4096: error %v, want one about heads × head_dim", err)
	}
}

// FuzzQwen3Config: parseConfig never panics, and a config it accepts has bounded sizes.
func FuzzQwen3Config(f *testing.F) {
	if raw, err := os.ReadFile(filepath.Join(golden.TinyModel(f), "text_encoder", "config.json")); err == nil {
		f.Add(raw)
	}
	for _, s := range []string{qwen3_4B, qwen3_8B, `{}`, `null`, `[]`, `{"model_type": "qwen3", "num_hidden_layers": 1000000000}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig(data)
		if err != nil {
			return
		}
		if c.NumHiddenLayers > MaxLayers || c.QDim() > maxWidth || c.KVDim() > maxWidth || c.VocabSize > maxVocabSize {
			t.Fatalf("accepted %+v", c)
		}
	})
}
