package widgets

import (
	"path/filepath"
	"unicode/utf8"
)

// ShortName shortens a file name to at most n runes (n ≥ 8) with "…" in the middle of its
// stem, keeping the stem's start and end and the extension: a label names a file in a
// fixed width instead of widening the column it is in. Short names come back unchanged.
func ShortName(name string, n int) string {
	n = max(n, 8)
	if utf8.RuneCountInString(name) <= n {
		return name
	}
	ext := filepath.Ext(name)
	if utf8.RuneCountInString(ext) > n/2 {
		ext = ""
	}
	stem := []rune(name[:len(name)-len(ext)])
	keep := n - utf8.RuneCountInString(ext) - 1 // runes of the stem that stay
	tail := keep / 3
	return string(stem[:keep-tail]) + "…" + string(stem[len(stem)-tail:]) + ext
}
