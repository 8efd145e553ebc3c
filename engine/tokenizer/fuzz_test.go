package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
