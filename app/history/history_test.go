package history

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAdd(t *testing.T) {
	var h []string
	for _, p := range []string{"a", "b", "a", " ", strings.Repeat("x", MaxPromptBytes+1), "c"} {
		h = Add(h, p)
	}
	if want := []string{"c", "a", "b"}; !slices.Equal(h, want) {
		t.Fatalf("history %q, want %q", h, want)
	}
	for i := range Max + 10 {
		h = Add(h, strings.Repeat("p", i+1))
	}
	if len(h) != Max || h[0] != strings.Repeat("p", Max+10) {
		t.Fatalf("after %d more: %d prompts, first %q", Max+10, len(h), h[0])
	}
}

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.json")
	if h, err := Load(path); err != nil || len(h) != 0 {
		t.Fatalf("missing file: %q, %v", h, err)
	}
	want := []string{"a lighthouse", "ünïcödé\n\ttabs", "a fox"}
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	if h, err := Load(path); err != nil || !slices.Equal(h, want) {
		t.Fatalf("loaded %q, %v; want %q", h, err, want)
	}
	os.WriteFile(path, []byte(`{"prompts": ["x", "", "y", "x"]}`), 0o644)
	if h, err := Load(path); err != nil || !slices.Equal(h, []string{"x", "y"}) {
		t.Fatalf("loaded %q, %v; want [x y]", h, err)
	}
	os.WriteFile(path, []byte(`{"prompts": [1`), 0o644)
	if h, err := Load(path); err == nil || len(h) != 0 {
		t.Fatalf("damaged file: %q, %v", h, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"prompts": ["a", "b", "a"]}`))
	f.Add([]byte(`{"prompts": null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		h, err := Parse(raw)
		if err != nil {
			return
		}
		if len(h) > Max {
			t.Fatalf("%d prompts", len(h))
		}
		seen := map[string]bool{}
		for _, p := range h {
			if seen[p] || strings.TrimSpace(p) == "" || len(p) > MaxPromptBytes {
				t.Fatalf("kept %q", p)
			}
			seen[p] = true
		}
	})
}
