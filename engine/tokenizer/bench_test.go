package tokenizer

import (
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// Prompts for timing: a typical one, and the golden case that overflows 512 tokens.
const typicalPrompt = "a photograph of an astronaut riding a horse on mars, 8k, highly detailed, " +
	"sharp focus, dramatic lighting, cinematic composition, volumetric fog"

func longPrompt(t testing.TB) string {
	for _, c := range loadGolden(t).Cases {
		if c.NumTokens == MaxLength {
			return c.Prompt
		}
	}
	t.Fatal("no truncated golden case")
	return ""
}

// clearCache empties the word cache so a timing includes all BPE work.
func (t *Tokenizer) clearCache() {
	t.model.cache.mu.Lock()
	t.model.cache.words = nil
	t.model.cache.mu.Unlock()
}

func BenchmarkEncodeChat(b *testing.B) {
	tok := qwenTokenizer(b)
	for _, bc := range []struct {
		name, prompt string
		cold         bool
	}{
		{"typical", typicalPrompt, false},
		{"typical-cold", typicalPrompt, true},
		{"long", longPrompt(b), false},
		{"long-cold", longPrompt(b), true},
		{"long-no-spaces", strings.Repeat("abcdefghij", 300), true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.prompt)))
			for b.Loop() {
				if bc.cold {
					tok.clearCache()
				}
				tok.EncodeChat(bc.prompt, MaxLength)
			}
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	dir := filepath.Join(golden.TinyModel(b), "tokenizer")
	for b.Loop() {
		if _, err := Load(dir); err != nil {
			b.Fatal(err)
		}
	}
}
