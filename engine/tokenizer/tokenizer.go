// Package tokenizer implements the Qwen3 (Qwen2-style) byte-level BPE tokenizer of the
// FLUX.2-klein text encoder, reading Hugging Face tokenizer.json files and reproducing the
// ids of the tokenizers library exactly, plus the chat template the pipeline wraps every
// prompt in.
//
// Encoding follows tokenizers: added tokens (such as <|im_end|>) are cut out of the raw
// text first, the rest is NFC-normalised, split by the Qwen2 pre-tokenizer pattern, and
// each piece's UTF-8 bytes are merged by BPE rank.
package tokenizer

import (
	"golang.org/x/text/unicode/norm"
)

const (
	// MaxLength is the number of text positions the pipeline encodes (max_sequence_length).
	MaxLength = 512
	// PadID is <|endoftext|>, Qwen3's pad token; Load takes the pad token from
	// tokenizer_config.json when that file names one.
	PadID = 151643
)

// Chat template pieces for one user message with the generation prompt and thinking
// disabled (Qwen3's template with add_generation_prompt=True, enable_thinking=False).
const (
	chatPrefix = "<|im_start|>user\n"
	chatSuffix = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
)

// Tokenizer encodes text to token ids and back. Create one with Load; it is safe for
// concurrent use.
type Tokenizer struct {
	bytes       *byteLevel
	normalizer  []norm.Form // applied in order; empty for none
	model       bpeModel
	addedTokens []addedToken
	rawMatcher  *addedMatcher // added tokens matched in the raw text
	normMatcher *addedMatcher // added tokens with normalized=true, matched after normalising
	tokens      []string      // id -> vocabulary entry or added token content ("" if unused)
	pad         int
}

// ChatPrompt wraps a prompt in the chat template the pipeline encodes:
// "<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n".
func ChatPrompt(prompt string) string {
	return chatPrefix + prompt + chatSuffix
}

// Encode returns the ids of text without any template or special tokens added. Added
// tokens written in the text (such as "<|im_end|>") become their ids, as in the
// reference. Invalid UTF-8 is first replaced by U+FFFD.
func (t *Tokenizer) Encode(text string) []int {
	text = toValidUTF8(text)
	ids := make([]int, 0, len(text)/3+4)
	var scratch []scanRune
	encodeWords := func(piece string) {
		scratch = splitWords(piece, scratch, func(word string) {
			ids = t.model.appendWord(ids, word)
		})
	}
	t.rawMatcher.split(text, func(piece string, id int) {
		if id >= 0 {
			ids = append(ids, id)
			return
		}
		t.normMatcher.split(t.normalize(piece), func(piece string, id int) {
			if id >= 0 {
				ids = append(ids, id)
				return
			}
			encodeWords(piece)
		})
	})
	return ids
}

// normalize applies the configured Unicode normal forms.
func (t *Tokenizer) normalize(s string) string {
	for _, f := range t.normalizer {
		s = f.String(s)
	}
	return s
}

// EncodeChat encodes ChatPrompt(prompt), truncates it to maxLen ids and right-pads it with
// the pad token to exactly maxLen, returning the ids and the attention mask (1 for text,
// 0 for padding). maxLen <= 0 means MaxLength.
func (t *Tokenizer) EncodeChat(prompt string, maxLen int) (ids, mask []int) {
	if maxLen <= 0 {
		maxLen = MaxLength
	}
	text := t.Encode(ChatPrompt(prompt))
	ids = make([]int, maxLen)
	mask = make([]int, maxLen)
	n := copy(ids, text)
	for i := range maxLen {
		if i < n {
			mask[i] = 1
		} else {
			ids[i] = t.pad
		}
	}
	return ids, mask
}

// Decode returns the text of ids, special tokens included, as the reference's ByteLevel
// decoder does: ids that are no token are skipped, every token (added ones too) is mapped
// back through the byte-level table, and byte sequences that are not valid UTF-8 become
// U+FFFD.
func (t *Tokenizer) Decode(ids []int) string {
	var b []byte
	for _, id := range ids {
		if id < 0 || id >= len(t.tokens) {
			continue
		}
		b = t.bytes.appendDecoded(b, t.tokens[id])
	}
	return toValidUTF8(string(b))
}
