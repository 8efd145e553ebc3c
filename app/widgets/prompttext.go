package widgets

import (
	"unicode/utf8"

	"fyne.io/fyne/v2"
)

// WrapRunes bounds the text a multi-line field word-wraps. Fyne measures the rest of a
// paragraph for every row it breaks, which is quadratic in the paragraph's length (1,000
// runes cost ~0.2 s, 16 KB 11 s, 64 KB over two minutes): a field wraps while the sum of
// its paragraphs' squared lengths stays within WrapRunes², and scrolls sideways beyond
// (64 KB then take ~0.4 s).
const WrapRunes = 1000

// FieldWrapping is the wrapping a multi-line field uses for text.
func FieldWrapping(text string) fyne.TextWrap {
	const budget = WrapRunes * WrapRunes
	cost, n := 0, 0
	for _, r := range text {
		if r == '\n' {
			n = 0
			continue
		}
		n++
		if cost += 2*n - 1; cost > budget { // n² grows by 2n−1 per rune
			return fyne.TextWrapOff
		}
	}
	return fyne.TextWrapWord
}

// ClipRunes shortens s to at most n runes, ending it with "…" when cut.
func ClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n-1 {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}
