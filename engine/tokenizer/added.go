package tokenizer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json's added_tokens: a string matched in the text
// before normalisation and BPE and turned into one id.
type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedMatcher finds added tokens in a text like Hugging Face tokenizers'
// AddedVocabulary::find_matches: non-overlapping leftmost-longest matches (its
// Aho-Corasick automaton), then the single_word / lstrip / rstrip rules per token.
type addedMatcher struct {
	patterns []string     // what is searched (normalised content for normalized tokens)
	tokens   []addedToken // parallel to patterns
	byFirst  [256][]int32 // pattern indices by first byte
	// skipSpecial leaves special tokens as plain text (split_special_tokens).
	skipSpecial bool
}

func newAddedMatcher(tokens []addedToken, patterns []string) *addedMatcher {
	m := &addedMatcher{}
	for i, tok := range tokens {
		p := patterns[i]
		if p == "" {
			continue
		}
		m.byFirst[p[0]] = append(m.byFirst[p[0]], int32(len(m.patterns)))
		m.patterns = append(m.patterns, p)
		m.tokens = append(m.tokens, tok)
	}
	return m
}

// longestAt returns the index of the longest pattern starting at s[i:], or -1.
func (m *addedMatcher) longestAt(s string, i int) int {
	best, bestLen := -1, 0
	for _, k := range m.byFirst[s[i]] {
		p := m.patterns[k]
		if len(p) > bestLen && strings.HasPrefix(s[i:], p) {
			best, bestLen = int(k), len(p)
		}
	}
	return best
}

// split calls emit for the consecutive pieces of s: plain text with id -1, or an added
// token's span with its id.
func (m *addedMatcher) split(s string, emit func(piece string, id int)) {
	if len(m.patterns) == 0 {
		if s != "" {
			emit(s, -1)
		}
		return
	}
	done := 0 // end of what has been emitted
	for i := 0; i < len(s); {
		k := m.longestAt(s, i)
		if k < 0 {
			i++
			continue
		}
		tok := &m.tokens[k]
		start, stop := i, i+len(m.patterns[k])
		i = stop // the automaton resumes after every match, used or not
		if m.skipSpecial && tok.Special {
			continue
		}
		if tok.SingleWord && (endsWithWord(s[:start]) || startsWithWord(s[stop:])) {
			continue
		}
		if tok.LStrip {
			start = max(len(strings.TrimRightFunc(s[:start], unicode.IsSpace)), done)
		}
		if tok.RStrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], unicode.IsSpace))
			i = max(i, stop)
		}
		if start < done {
			continue // the previous token's rstrip already took this text
		}
		if start > done {
			emit(s[done:start], -1)
		}
		emit(s[start:stop], tok.ID)
		done = stop
	}
	if done < len(s) {
		emit(s[done:], -1)
	}
}

// isWordRune is Rust regex's Unicode \w: Alphabetic, marks, decimal digits, connector
// punctuation and join controls.
func isWordRune(r rune) bool {
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd,
		unicode.Pc, unicode.Join_Control)
}

func endsWithWord(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	return size > 0 && isWordRune(r)
}

func startsWithWord(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return size > 0 && isWordRune(r)
}

// setAddedTokens registers the added tokens for matching and decoding. The tokenizers
// library does not take their ids from the file: it adds the tokens one by one, reusing
// the id of a token already in the vocabulary and otherwise taking the next free id after
// the vocabulary. A file whose ids disagree with that (hand-edited) is rejected rather
// than encoded with ids the reference would not produce.
func (t *Tokenizer) setAddedTokens(added []addedToken, vocab map[string]int) error {
	ids := map[string]int{}   // content -> id
	index := map[string]int{} // content -> position in list (later entries update flags)
	var list []addedToken
	maxAdded := -1
	for i, a := range added {
		if a.Content == "" {
			continue // ignored by tokenizers too
		}
		id, ok := ids[a.Content]
		if !ok {
			id, ok = vocab[a.Content]
		}
		if !ok {
			id = len(vocab)
			if maxAdded >= len(vocab) {
				id = maxAdded + 1
			}
		}
		if a.ID != id {
			return fmt.Errorf("added_tokens[%d] (%q): id %d, but the tokenizers library assigns it id %d", i, a.Content, a.ID, id)
		}
		if id > maxTokenID {
			return fmt.Errorf("added_tokens[%d] (%q): id %d out of range", i, a.Content, id)
		}
		ids[a.Content] = id
		maxAdded = max(maxAdded, id)
		if k, seen := index[a.Content]; seen {
			list[k] = a
		} else {
			index[a.Content] = len(list)
			list = append(list, a)
		}
	}
	if maxAdded >= len(t.tokens) {
		t.tokens = append(t.tokens, make([]string, maxAdded+1-len(t.tokens))...)
	}
	var raw, normed []addedToken
	var rawPatterns, normPatterns []string
	for _, a := range list {
		t.tokens[a.ID] = a.Content
		if a.Normalized {
			// tokenizers decodes such a token to its normalised form too.
			t.tokens[a.ID] = t.normalize(a.Content)
			normed = append(normed, a)
			normPatterns = append(normPatterns, t.tokens[a.ID])
		} else {
			raw = append(raw, a)
			rawPatterns = append(rawPatterns, a.Content)
		}
	}
	t.addedTokens = list
	t.rawMatcher = newAddedMatcher(raw, rawPatterns)
	t.normMatcher = newAddedMatcher(normed, normPatterns)
	return nil
}
