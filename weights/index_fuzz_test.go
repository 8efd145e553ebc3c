package weights_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// FuzzParseIndex: parseIndex never panics on any *.safetensors.index.json text, and what it
// returns has a shard for every tensor and no tensor twice.
func FuzzParseIndex(f *testing.F) {
	// A two-shard index over the golden tiny text encoder's tensor names, as Qwen3 ships.
	if c, err := weights.Open(filepath.Join(golden.TinyModel(f), "text_encoder", "model.safetensors")); err == nil {
		wm := map[string]string{}
		for i, n := range c.Names() {
			wm[n] = fmt.Sprintf("model-%05d-of-00002.safetensors", 1+i%2)
		}
		c.Close()
		if raw, err := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": 1234}, "weight_map": wm}); err == nil {
			f.Add(raw)
		}
	}
	for _, s := range []string{`{}`, `null`, `[]`, `{"weight_map": {}}`, `{"weight_map": {"a": "x.safetensors", "a": "y.safetensors"}}`,
		`{"weight_map": {"a": 1}}`, `{"weight_map": {"a": "../x"}} trailing`, `{"weight_map": {"a": "b"}, "metadata": [[[[]]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := weights.ParseIndexPairs(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range entries {
			if seen[e[0]] {
				t.Fatalf("tensor %q listed twice", e[0])
			}
			seen[e[0]] = true
		}
		if len(entries) == 0 {
			t.Fatal("no entries without an error")
		}
	})
}

func TestCount(t *testing.T) {
	c, err := weights.Open(filepath.Join(golden.TinyModel(t), "text_encoder", "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for prefix, want := range map[string]int{"model.layers.": 28, "model.": 0, "nothing.": 0, "model.layers.3.": 0} {
		if got := c.Count(prefix); got != want {
			t.Errorf("Count(%q) = %d, want %d", prefix, got, want)
		}
	}
}
