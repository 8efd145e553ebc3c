package tokenizer

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tinyDoc returns testdata/tiny/tokenizer.json decoded, for building variants.
func tinyDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	readJSON(t, filepath.Join("testdata", "tiny", "tokenizer.json"), &doc)
	return doc
}

// writeTokenizer writes a tokenizer folder with the given tokenizer.json content and,
// unless config is nil, tokenizer_config.json.
func writeTokenizer(t *testing.T, tokenizerJSON, config []byte) string {
	t.Helper()
	dir := t.TempDir()
	if tokenizerJSON != nil {
		if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), tokenizerJSON, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if config != nil {
		if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), config, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var tinyConfig = []byte(`{"pad_token": "<|endoftext|>"}`)

func modelOf(doc map[string]any) map[string]any { return doc["model"].(map[string]any) }

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(doc map[string]any)
		raw    string // tokenizer.json text instead of the edited tiny document
		config string // tokenizer_config.json text instead of tinyConfig
		file   string // file the error must name
		want   string // fragment the error must contain
	}{
		{name: "empty file", raw: " ", file: "tokenizer.json", want: "unexpected end"},
		{name: "corrupt JSON", raw: `{"model": {"vocab": {"a": 1,}}}`, file: "tokenizer.json", want: "invalid JSON"},
		{name: "trailing data", raw: `{} {}`, file: "tokenizer.json", want: "after the top-level value"},
		{name: "invalid UTF-8", raw: "{\"x\": \"\xff\"}", file: "tokenizer.json", want: "UTF-8"},
		{name: "no model", edit: func(d map[string]any) { delete(d, "model") }, file: "tokenizer.json", want: "no model"},
		{name: "no vocab", edit: func(d map[string]any) { delete(modelOf(d), "vocab") }, file: "tokenizer.json", want: "no vocab"},
		{name: "no merges", edit: func(d map[string]any) { delete(modelOf(d), "merges") }, file: "tokenizer.json", want: "no merges"},
		{name: "vocab not an object", edit: func(d map[string]any) { modelOf(d)["vocab"] = []any{1} }, file: "tokenizer.json", want: "model.vocab"},
		{name: "negative id", edit: func(d map[string]any) { modelOf(d)["vocab"].(map[string]any)["zz"] = -3 }, file: "tokenizer.json", want: `model.vocab["zz"]`},
		{name: "fractional id", edit: func(d map[string]any) { modelOf(d)["vocab"].(map[string]any)["zz"] = 1.5 }, file: "tokenizer.json", want: `model.vocab["zz"]`},
		{name: "huge id", edit: func(d map[string]any) { modelOf(d)["vocab"].(map[string]any)["zz"] = 1e12 }, file: "tokenizer.json", want: `model.vocab["zz"]`},
		{name: "duplicate id", edit: func(d map[string]any) { modelOf(d)["vocab"].(map[string]any)["zz"] = 104 }, file: "tokenizer.json", want: `id 104 is used by both "h" and "zz"`},
		{name: "merge of unknown token", edit: func(d map[string]any) { appendMerge(d, "h zz") }, file: "tokenizer.json", want: `token "zz" is not in the vocab`},
		{name: "merge result unknown", edit: func(d map[string]any) { appendMerge(d, "x y") }, file: "tokenizer.json", want: `token "xy" is not in the vocab`},
		{name: "merge string malformed", edit: func(d map[string]any) { appendMerge(d, "a b c") }, file: "tokenizer.json", want: "two tokens separated by one space"},
		{name: "merge pair malformed", edit: func(d map[string]any) { appendMerge(d, []any{"a"}) }, file: "tokenizer.json", want: "want a pair of strings"},
		{name: "merge not a string", edit: func(d map[string]any) { appendMerge(d, 7) }, file: "tokenizer.json", want: "model.merges[18]"},
		{name: "byte token missing", edit: func(d map[string]any) { delete(modelOf(d)["vocab"].(map[string]any), "Ā") }, file: "tokenizer.json", want: "byte 0x00"},
		{name: "not BPE", edit: func(d map[string]any) { modelOf(d)["type"] = "WordPiece" }, file: "tokenizer.json", want: `unsupported type "WordPiece"`},
		{name: "dropout", edit: func(d map[string]any) { modelOf(d)["dropout"] = 0.1 }, file: "tokenizer.json", want: "dropout"},
		{name: "subword prefix", edit: func(d map[string]any) { modelOf(d)["continuing_subword_prefix"] = "##" }, file: "tokenizer.json", want: "continuing_subword_prefix"},
		{name: "normalizer", edit: func(d map[string]any) { d["normalizer"] = map[string]any{"type": "Lowercase"} }, file: "tokenizer.json", want: `normalizer: unsupported type "Lowercase"`},
		{name: "pre-tokenizer regex", edit: func(d map[string]any) { setSplitRegex(d, `\s+`) }, file: "tokenizer.json", want: "pre_tokenizer.pretokenizers[0]"},
		{name: "pre-tokenizer missing", edit: func(d map[string]any) { d["pre_tokenizer"] = nil }, file: "tokenizer.json", want: "pre_tokenizer: unsupported"},
		{name: "decoder", edit: func(d map[string]any) { d["decoder"] = map[string]any{"type": "WordPiece"} }, file: "tokenizer.json", want: "decoder"},
		{name: "post-processor adds tokens", edit: func(d map[string]any) { d["post_processor"] = map[string]any{"type": "TemplateProcessing"} }, file: "tokenizer.json", want: "post_processor"},
		{name: "added token id", edit: func(d map[string]any) { d["added_tokens"].([]any)[1].(map[string]any)["id"] = 999 }, file: "tokenizer.json", want: `added_tokens[1] ("<|im_start|>"): id 999`},
		{name: "added tokens malformed", edit: func(d map[string]any) { d["added_tokens"] = "x" }, file: "tokenizer.json", want: "added_tokens"},
		{name: "corrupt config", config: `{"pad_token": `, file: "tokenizer_config.json", want: "unexpected end"},
		{name: "unknown pad token", config: `{"pad_token": "<pad>"}`, file: "tokenizer_config.json", want: `pad_token "<pad>"`},
		{name: "bad pad token", config: `{"pad_token": 3}`, file: "tokenizer_config.json", want: "pad_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := []byte(tc.raw)
			if tc.raw == "" {
				doc := tinyDoc(t)
				if tc.edit != nil {
					tc.edit(doc)
				}
				text = mustJSON(t, doc)
			}
			config := tinyConfig
			if tc.config != "" {
				config = []byte(tc.config)
			}
			_, err := Load(writeTokenizer(t, text, config))
			if err == nil {
				t.Fatal("Load succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, string(filepath.Separator)+tc.file) || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q should name %s and contain %q", msg, tc.file, tc.want)
			}
		})
	}
}

func appendMerge(doc map[string]any, merge any) {
	m := modelOf(doc)
	m["merges"] = append(m["merges"].([]any), merge)
}

func setSplitRegex(doc map[string]any, re string) {
	pre := doc["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)
	pre[0].(map[string]any)["pattern"] = map[string]any{"Regex": re}
}

func TestLoadMissingFile(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "tokenizer.json")) {
		t.Errorf("Load of an empty folder: %v; want a not-exist error naming tokenizer.json", err)
	}
}

// TestMergeFormats loads the tiny tokenizer with "a b" merges (as stored) and with
// ["a", "b"] pairs, and with escaped JSON strings: all must encode alike.
func TestMergeFormats(t *testing.T) {
	doc := tinyDoc(t)
	legacy := mustJSON(t, doc)
	var pairs []any
	for _, m := range modelOf(doc)["merges"].([]any) {
		a, b, _ := strings.Cut(m.(string), " ")
		pairs = append(pairs, []any{a, b})
	}
	modelOf(doc)["merges"] = pairs
	paired := mustJSON(t, doc)
	// encoding/json escapes <, > and & as \u003c etc.; also force escapes of non-ASCII.
	escaped := []byte(strings.NewReplacer("Ġ", `\u0120`, "é", `\u00e9`, `"`+"a", `"\u0061`).Replace(string(paired)))

	text := "hello world, <|im_end|> café 'saaaa  x y"
	var first []int
	for i, data := range [][]byte{legacy, paired, escaped} {
		tok, err := Load(writeTokenizer(t, data, tinyConfig))
		if err != nil {
			t.Fatalf("variant %d: %v", i, err)
		}
		ids := tok.Encode(text)
		if i == 0 {
			first = ids
			if len(ids) == 0 {
				t.Fatal("no ids")
			}
		} else if !slices.Equal(ids, first) {
			t.Errorf("variant %d: %v, want %v", i, ids, first)
		}
	}
}

func TestConfig(t *testing.T) {
	doc := mustJSON(t, tinyDoc(t))

	// Without tokenizer_config.json the pad id defaults to PadID, which the tiny
	// vocabulary lacks.
	if _, err := Load(writeTokenizer(t, doc, nil)); err == nil || !strings.Contains(err.Error(), "pad id 151643") {
		t.Errorf("tiny tokenizer without config: %v; want an unknown pad id error", err)
	}

	// pad_token in the older object form.
	tok, err := Load(writeTokenizer(t, doc, []byte(`{"pad_token": {"__type": "AddedToken", "content": "<|im_end|>"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if ids, mask := tok.EncodeChat("", 64); ids[63] != 276 || mask[63] != 0 {
		t.Errorf("padding with <|im_end|>: ids %v mask %v", ids, mask)
	}

	// split_special_tokens: special tokens are plain text, other added tokens still match.
	tok, err = Load(writeTokenizer(t, doc, []byte(`{"pad_token": "<|endoftext|>", "split_special_tokens": true}`)))
	if err != nil {
		t.Fatal(err)
	}
	ids := tok.Encode("<|im_end|>hello<|im")
	if slices.Contains(ids, 276) || ids[len(ids)-1] != 283 {
		t.Errorf("split_special_tokens: %v; want <|im_end|> as text and <|im (283) matched", ids)
	}
	if got := tok.Decode(ids); got != "<|im_end|>hello<|im" {
		t.Errorf("split_special_tokens round trip: %q", got)
	}
}

func TestEncodeChatLengths(t *testing.T) {
	tok, err := Load(filepath.Join("testdata", "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	full := tok.Encode(ChatPrompt("hello"))
	for _, maxLen := range []int{1, len(full) - 1, len(full), len(full) + 3} {
		ids, mask := tok.EncodeChat("hello", maxLen)
		if len(ids) != maxLen || len(mask) != maxLen {
			t.Fatalf("maxLen %d: got %d ids, %d mask", maxLen, len(ids), len(mask))
		}
		n := min(maxLen, len(full))
		if !slices.Equal(ids[:n], full[:n]) || countOnes(mask) != n {
			t.Errorf("maxLen %d: ids %v mask %v", maxLen, ids, mask)
		}
		for i := n; i < maxLen; i++ {
			if ids[i] != 274 || mask[i] != 0 {
				t.Errorf("maxLen %d: position %d = (%d, %d), want pad (274, 0)", maxLen, i, ids[i], mask[i])
			}
		}
	}
	if ids, mask := tok.EncodeChat("hello", 0); len(ids) != MaxLength || len(mask) != MaxLength {
		t.Errorf("maxLen 0: got %d ids, want MaxLength", len(ids))
	}
}
