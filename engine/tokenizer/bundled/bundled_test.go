package bundled_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kleinbild/engine/tokenizer"
	"kleinbild/engine/tokenizer/bundled"
	"kleinbild/weights/golden"
)

// TestBundledFiles: the bundled files are byte-identical to golden/tokenizer's.
func TestBundledFiles(t *testing.T) {
	tok, err := bundled.TokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]byte{"tokenizer.json": tok, "tokenizer_config.json": bundled.TokenizerConfigJSON()} {
		want, err := os.ReadFile(golden.Path(t, "tokenizer", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: bundled copy (%d bytes) differs from golden (%d bytes)", name, len(got), len(want))
		}
	}
}

// TestBundledTokenizes: a tokenizer folder written from the bundled files loads and reproduces
// the chat-template ids of every golden case (qwen3_chat_512.json) exactly.
func TestBundledTokenizes(t *testing.T) {
	dir := t.TempDir()
	tok, err := bundled.TokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), tok, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), bundled.TokenizerConfigJSON(), 0o600); err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(golden.Path(t, "tokenizer", "qwen3_chat_512.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		MaxLength int `json:"max_length"`
		Cases     []struct {
			Prompt   string `json:"prompt"`
			InputIDs []int  `json:"input_ids"`
			Mask     []int  `json:"attention_mask"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("no golden cases")
	}
	for i, c := range g.Cases {
		ids, mask := tk.EncodeChat(c.Prompt, g.MaxLength)
		if !slices.Equal(ids, c.InputIDs) || !slices.Equal(mask, c.Mask) {
			t.Errorf("case %d (%q): ids differ", i, c.Prompt)
		}
	}
}
