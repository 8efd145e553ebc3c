package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// qwen2Pattern is the Split pre-tokenizer regex of Qwen2/Qwen3 tokenizer.json files. The
// Hugging Face tokenizers library runs it with Oniguruma; splitWords below reproduces its
// leftmost-first, backtracking semantics by hand (Go's regexp lacks the look-ahead).
const qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// runeClass partitions runes for the pattern: \p{L}, \p{N}, \s (Unicode White_Space, as
// Oniguruma's \s) and everything else. The four classes are disjoint.
type runeClass uint8

const (
	classOther runeClass = iota
	classLetter
	classNumber
	classSpace
)

var asciiClass = func() (t [utf8.RuneSelf]runeClass) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classifyRune(r)
	}
	return t
}()

func classifyRune(r rune) runeClass {
	switch {
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

func classify(r rune) runeClass {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	return classifyRune(r)
}

// scanRune is one decoded rune of the text being split.
type scanRune struct {
	r   rune
	off int // byte offset in the text
	cls runeClass
}

// splitWords calls emit with each piece of s as split by qwen2Pattern with the Isolated
// behaviour (matches become pieces; the pattern matches at every position, so the pieces
// tile s). buf is scratch space, returned for reuse.
func splitWords(s string, buf []scanRune, emit func(word string)) []scanRune {
	rs := buf[:0]
	for off, r := range s {
		rs = append(rs, scanRune{r: r, off: off, cls: classify(r)})
	}
	for i := 0; i < len(rs); {
		j := matchEnd(rs, i)
		end := len(s)
		if j < len(rs) {
			end = rs[j].off
		}
		emit(s[rs[i].off:end])
		i = j
	}
	return rs
}

func isCRLF(r rune) bool { return r == '\r' || r == '\n' }

// matchEnd returns the end (exclusive rune index) of the pattern's match starting at rune
// i, trying the seven alternatives in order as a backtracking engine does.
func matchEnd(rs []scanRune, i int) int {
	n := len(rs)
	c := rs[i]

	// 1. (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if c.r == '\'' {
		if k := contraction(rs[i+1:]); k > 0 {
			return i + 1 + k
		}
	}

	// 2. [^\r\n\p{L}\p{N}]?\p{L}+ — letters, optionally after one char that is not a
	// line break, letter or number.
	if c.cls == classLetter || (c.cls != classNumber && !isCRLF(c.r) && i+1 < n && rs[i+1].cls == classLetter) {
		j := i + 1
		for j < n && rs[j].cls == classLetter {
			j++
		}
		return j
	}

	// 3. \p{N} — a single number character.
	if c.cls == classNumber {
		return i + 1
	}

	// 4. ` ?[^\s\p{L}\p{N}]+[\r\n]*` — symbols, optionally after one space, then line breaks.
	j := i
	if c.r == ' ' {
		j = i + 1
	}
	if j < n && rs[j].cls == classOther {
		j++
		for j < n && rs[j].cls == classOther {
			j++
		}
		for j < n && isCRLF(rs[j].r) {
			j++
		}
		return j
	}

	// Only white space reaches this point (every other class matched above).
	e := i
	for e < n && rs[e].cls == classSpace {
		e++
	}
	// 5. \s*[\r\n]+ — white space up to and including its last line break.
	for k := e - 1; k >= i; k-- {
		if isCRLF(rs[k].r) {
			return k + 1
		}
	}
	// 6. \s+(?!\S) — the run, minus its last char when a non-space follows.
	if e == n {
		return e
	}
	if e-1 > i {
		return e - 1
	}
	// 7. \s+ — a single space before a non-space.
	return e
}

// contraction matches s|t|re|ve|m|ll|d case-insensitively at the start of rs and returns
// the number of runes matched, or 0.
func contraction(rs []scanRune) int {
	at := func(k int, lower rune) bool {
		if k >= len(rs) {
			return false
		}
		r := rs[k].r
		// Simple case folding: ASCII upper case, and U+017F LONG S folds to 's'.
		return r == lower || r == lower-'a'+'A' || (lower == 's' && r == 'ſ')
	}
	switch {
	case at(0, 's'), at(0, 't'), at(0, 'm'), at(0, 'd'):
		return 1
	case at(0, 'r') && at(1, 'e'), at(0, 'v') && at(1, 'e'), at(0, 'l') && at(1, 'l'):
		return 2
	}
	return 0
}
