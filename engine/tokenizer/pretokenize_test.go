package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitWords checks the hand-written scanner against the pieces a backtracking regex
// engine (Python's regex module) gives for qwen2Pattern.
func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Hello,   world!!  Multiple   spaces", []string{"Hello", ",", "  ", " world", "!!", " ", " Multiple", "  ", " spaces"}},
		{"  leading and trailing  ", []string{" ", " leading", " and", " trailing", "  "}},
		{"a \n\n  b", []string{"a", " \n\n", " ", " b"}},
		{" \t x", []string{" \t", " x"}},
		{"x \r\n\t y", []string{"x", " \r\n", "\t", " y"}},
		{"it's HE'LL 'Sup'ſ", []string{"it", "'s", " HE", "'LL", " '", "Sup", "'ſ"}},
		{"(hello) [x]", []string{"(hello", ")", " [", "x", "]"}},
		{"12ab3", []string{"1", "2", "ab", "3"}},
		{"a.\n\nb", []string{"a", ".\n\n", "b"}},
		{"\u00a0word \u3000\u3000z", []string{"\u00a0word", " \u3000", "\u3000z"}},
		{"emoji 🦊 !!\n", []string{"emoji", " 🦊", " !!\n"}},
		{"\n", []string{"\n"}},
		{"  ", []string{"  "}},
		{"a  ", []string{"a", "  "}},
		{"'", []string{"'"}},
		{"x'", []string{"x", "'"}},
		{"", nil},
	} {
		var got []string
		splitWords(tc.text, nil, func(w string) { got = append(got, w) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, want %q", tc.text, got, tc.want)
		}
		if strings.Join(got, "") != tc.text {
			t.Errorf("splitWords(%q): pieces do not tile the text", tc.text)
		}
	}
}
