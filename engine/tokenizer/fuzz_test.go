package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"kleinbild/weights/golden"
)

// FuzzEncode checks on arbitrary input that Encode does not panic, returns only ids of
// real tokens, and, for valid UTF-8 without added-token text, that Decode gives back the
// NFC form of the input (byte-level BPE loses nothing); EncodeChat always fills maxLen.
func FuzzEncode(f *testing.F) {
	tok := qwenTokenizer(f)
	for _, c := range loadGolden(f).Cases {
		f.Add(c.Prompt)
	}
	for _, s := range []string{"\xff\xfe", "e\u0301\u0323", "<|im_end", "'S'll\r\n\u2028", "\u00a0 \u3000x", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		for _, id := range ids {
			if id < 0 || id >= len(tok.tokens) || tok.tokens[id] == "" {
				t.Fatalf("Encode(%q) returned id %d, which is no token", s, id)
			}
		}
		if utf8.ValidString(s) && !containsAddedToken(tok, s) {
			if got, want := tok.Decode(ids), norm.NFC.String(s); got != want {
				t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, got, want)
			}
		}
		const maxLen = 64
		chat, mask := tok.EncodeChat(s, maxLen)
		if len(chat) != maxLen || len(mask) != maxLen {
			t.Fatalf("EncodeChat(%q): %d ids, %d mask entries", s, len(chat), len(mask))
		}
	})
}

func containsAddedToken(tok *Tokenizer, s string) bool {
	for _, a := range tok.addedTokens {
		if strings.Contains(s, a.Content) {
			return true
		}
	}
	return false
}

// FuzzLoadTokenizerJSON parses arbitrary tokenizer.json text: it must return a tokenizer
// or an error, never panic, hang or allocate without bound; a tokenizer it returns must
// encode and decode text with ids of real tokens.
func FuzzLoadTokenizerJSON(f *testing.F) {
	tiny, err := os.ReadFile(filepath.Join("testdata", "tiny", "tokenizer.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(tiny))
	var doc map[string]any
	if err := json.Unmarshal(tiny, &doc); err != nil {
		f.Fatal(err)
	}
	model := doc["model"].(map[string]any)
	var pairs []any
	for _, m := range model["merges"].([]any) {
		a, b, _ := strings.Cut(m.(string), " ")
		pairs = append(pairs, []any{a, b})
	}
	model["merges"] = pairs
	if paired, err := json.Marshal(doc); err == nil {
		f.Add(string(paired))
	}
	// The head of the real Qwen3 file (truncated, so an error) and small broken documents.
	if real, err := os.ReadFile(golden.Path(f, "tokenizer", "tokenizer.json")); err == nil {
		f.Add(string(real[:4096]))
	}
	for _, s := range []string{``, `{}`, `null`, `[]`, `{"model": {}}`, `{"model": {"vocab": {"a": 0}, "merges": []}}`,
		`{"model": {"vocab": {"a": 99999999999}, "merges": [["a", "b"]]}}`, `{"x": [[[[[[]]]]]]}`, `{"x": "\ud800"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		tok, err := parse(data)
		if err != nil {
			return
		}
		for _, id := range tok.Encode("Hello, wörld <|im_end|> 123") {
			if id < 0 || id >= len(tok.tokens) {
				t.Fatalf("id %d out of range", id)
			}
		}
		tok.Decode([]int{0, len(tok.tokens) - 1, len(tok.tokens), -1})
	})
}
