package tokenizer

import (
	"testing"
	"unicode/utf8"
)

func TestByteLevelTable(t *testing.T) {
	bl := newByteLevel()
	seen := map[rune]bool{}
	for b := range 256 {
		r := bl.toRune[b]
		if seen[r] || bl.toByte[r] != int16(b) {
			t.Fatalf("byte 0x%02X -> %U is not a bijection", b, r)
		}
		seen[r] = true
	}
	// Spot checks of the GPT-2 table: space is Ġ, newline Ċ, 'a' itself, 0xAD is Ń.
	for b, want := range map[byte]rune{' ': 'Ġ', '\n': 'Ċ', 'a': 'a', 0xAD: 'Ń', 0xFF: 'ÿ', 0: 'Ā'} {
		if bl.toRune[b] != want {
			t.Errorf("byte 0x%02X -> %q, want %q", b, bl.toRune[b], want)
		}
	}
	if got := string(bl.appendDecoded(nil, "ĠhelloĊ")); got != " hello\n" {
		t.Errorf("appendDecoded = %q", got)
	}
	// A character outside the table makes the token pass through verbatim.
	if got := string(bl.appendDecoded(nil, "a☃")); got != "a☃" {
		t.Errorf("appendDecoded with a foreign rune = %q", got)
	}
}

// TestToValidUTF8 checks the replacement of maximal invalid subsequences (as Rust's
// from_utf8_lossy, which the reference decoder uses).
func TestToValidUTF8(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain é", "plain é"},
		{"a\xffb", "a\uFFFDb"},
		{"\xe6\x97a", "\uFFFDa"},               // truncated 3-byte sequence: one replacement
		{"\xe6\x97\xe6\x97\xa5", "\uFFFD日"},    // truncated, then complete
		{"\xf0\x9f\x8e", "\uFFFD"},             // truncated 4-byte sequence
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogate: ED A0 is not a valid prefix
		{"\xc0\xaf", "\uFFFD\uFFFD"},           // overlong
		{"\x80\x80", "\uFFFD\uFFFD"},           // stray continuation bytes
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
	} {
		got := toValidUTF8(tc.in)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("toValidUTF8(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
