package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"

	"kleinbild/weights/golden"
)

// All comparisons in this package are exact: token ids, masks and text must be equal.

// goldenCase is one entry of golden/tokenizer/qwen3_chat_512.json (ids from Hugging Face
// tokenizers on the real Qwen3 tokenizer.json, chat text rendered like transformers).
type goldenCase struct {
	Prompt        string `json:"prompt"`
	Templated     string `json:"templated"`
	RawIDs        []int  `json:"raw_ids"`
	NumTokens     int    `json:"num_tokens"`
	InputIDs      []int  `json:"input_ids"`
	AttentionMask []int  `json:"attention_mask"`
}

type goldenFile struct {
	MaxLength int          `json:"max_length"`
	PadID     int          `json:"pad_id"`
	Cases     []goldenCase `json:"cases"`
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func loadGolden(t testing.TB) goldenFile {
	t.Helper()
	var g goldenFile
	readJSON(t, golden.Path(t, "tokenizer", "qwen3_chat_512.json"), &g)
	if len(g.Cases) != 41 {
		t.Fatalf("golden file has %d cases, want 41", len(g.Cases))
	}
	return g
}

var (
	qwenOnce sync.Once
	qwenTok  *Tokenizer
	qwenErr  error
)

// qwenTokenizer loads the Qwen3 tokenizer through the tiny model folder, once per test
// binary (Load takes ~0.1 s).
func qwenTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	dir := filepath.Join(golden.TinyModel(t), "tokenizer")
	qwenOnce.Do(func() { qwenTok, qwenErr = Load(dir) })
	if qwenErr != nil {
		t.Fatal(qwenErr)
	}
	return qwenTok
}

func TestGoldenChat(t *testing.T) {
	g := loadGolden(t)
	if g.MaxLength != MaxLength || g.PadID != PadID {
		t.Fatalf("golden max_length %d pad_id %d, package has %d %d", g.MaxLength, g.PadID, MaxLength, PadID)
	}
	standalone, err := Load(golden.Path(t, "tokenizer"))
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]*Tokenizer{"model-folder": qwenTokenizer(t), "golden-tokenizer": standalone} {
		t.Run(name, func(t *testing.T) {
			if tok.pad != PadID {
				t.Errorf("pad id from tokenizer_config.json = %d, want %d", tok.pad, PadID)
			}
			for i, c := range g.Cases {
				label := fmt.Sprintf("case %d %.40q", i, c.Prompt)
				if got := ChatPrompt(c.Prompt); got != c.Templated {
					t.Errorf("%s: ChatPrompt = %q, want %q", label, got, c.Templated)
				}
				if got := tok.Encode(c.Prompt); !slices.Equal(got, c.RawIDs) {
					t.Errorf("%s: Encode\n got %v\nwant %v", label, got, c.RawIDs)
				}
				ids, mask := tok.EncodeChat(c.Prompt, g.MaxLength)
				if !slices.Equal(ids, c.InputIDs) {
					t.Errorf("%s: EncodeChat ids\n got %v\nwant %v", label, ids, c.InputIDs)
				}
				if !slices.Equal(mask, c.AttentionMask) {
					t.Errorf("%s: EncodeChat mask\n got %v\nwant %v", label, mask, c.AttentionMask)
				}
				if n := countOnes(mask); n != c.NumTokens {
					t.Errorf("%s: %d real tokens, want %d", label, n, c.NumTokens)
				}
				// Byte-level BPE is lossless: decoding gives back the normalised text.
				if got, want := tok.Decode(c.RawIDs), norm.NFC.String(c.Prompt); got != want {
					t.Errorf("%s: Decode(raw_ids) = %q, want %q", label, got, want)
				}
				if c.NumTokens < g.MaxLength {
					if got, want := tok.Decode(c.InputIDs[:c.NumTokens]), norm.NFC.String(c.Templated); got != want {
						t.Errorf("%s: Decode(input_ids) = %q, want %q", label, got, want)
					}
				}
			}
		})
	}
}

func countOnes(mask []int) int {
	n := 0
	for _, m := range mask {
		n += m
	}
	return n
}

// TestPipelineInputs checks the ids the golden text-encoder cases were computed from.
func TestPipelineInputs(t *testing.T) {
	tok := qwenTokenizer(t)
	for k := range 4 {
		name := fmt.Sprintf("qwen3_prompt%d", k)
		var meta struct {
			Prompt    string `json:"prompt"`
			ChatText  string `json:"chat_text"`
			NumTokens int    `json:"num_tokens"`
		}
		readJSON(t, golden.Path(t, "qwen3", name+".json"), &meta)
		f := golden.Open(t, filepath.Join("qwen3", name+".safetensors"))
		wantIDs, _ := golden.I64(t, f, "input_ids")
		wantMask, _ := golden.I64(t, f, "attention_mask")

		if got := ChatPrompt(meta.Prompt); got != meta.ChatText {
			t.Errorf("%s: ChatPrompt = %q, want %q", name, got, meta.ChatText)
		}
		ids, mask := tok.EncodeChat(meta.Prompt, MaxLength)
		if !slices.Equal(toInt64(ids), wantIDs) || !slices.Equal(toInt64(mask), wantMask) {
			t.Errorf("%s: EncodeChat differs from the golden input_ids/attention_mask", name)
		}
		if n := countOnes(mask); n != meta.NumTokens {
			t.Errorf("%s: %d real tokens, want %d", name, n, meta.NumTokens)
		}
	}
}

func toInt64(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// referenceCases is a file written by testdata/gen_cases.js with tokenizers 0.23.2.
type referenceCases struct {
	Cases []struct {
		Text    string `json:"text"`
		IDs     []int  `json:"ids"`
		Decoded string `json:"decoded"`
	} `json:"cases"`
}

// TestReferenceCases compares with extra ids computed by the reference library: edge
// cases and random strings (white space runs, contractions, marks, emoji, added tokens)
// for Qwen3, and a tiny tokenizer exercising every added-token flag.
func TestReferenceCases(t *testing.T) {
	tiny, err := Load(filepath.Join("testdata", "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		tok  *Tokenizer
	}{
		{"qwen3_cases.json", qwenTokenizer(t)},
		{"tiny_cases.json", tiny},
	} {
		var ref referenceCases
		readJSON(t, filepath.Join("testdata", tc.file), &ref)
		if len(ref.Cases) < 400 {
			t.Fatalf("%s: only %d cases", tc.file, len(ref.Cases))
		}
		bad := 0
		for _, c := range ref.Cases {
			got := tc.tok.Encode(c.Text)
			if !slices.Equal(got, c.IDs) {
				if bad++; bad <= 10 {
					t.Errorf("%s: Encode(%q)\n got %v\nwant %v", tc.file, c.Text, got, c.IDs)
				}
			}
			if d := tc.tok.Decode(c.IDs); d != c.Decoded {
				if bad++; bad <= 10 {
					t.Errorf("%s: Decode(%v) = %q, want %q", tc.file, c.IDs, d, c.Decoded)
				}
			}
		}
		t.Logf("%s: %d cases, %d mismatches", tc.file, len(ref.Cases), bad)
	}
}

// TestConcurrentEncode runs EncodeChat from several goroutines (run with -race).
func TestConcurrentEncode(t *testing.T) {
	tok := qwenTokenizer(t)
	g := loadGolden(t)
	var wg sync.WaitGroup
	errs := make(chan string, len(g.Cases)*4)
	for w := range 4 {
		wg.Go(func() {
			for i := range g.Cases {
				c := g.Cases[(i+w*7)%len(g.Cases)]
				ids, _ := tok.EncodeChat(c.Prompt, MaxLength)
				if !slices.Equal(ids, c.InputIDs) {
					errs <- c.Prompt
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for p := range errs {
		t.Errorf("concurrent EncodeChat(%q) differs", p)
	}
}
