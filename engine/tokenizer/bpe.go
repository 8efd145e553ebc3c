package tokenizer

import (
	"strings"
	"sync"
)

// mergeRule is the result of merging one pair of adjacent tokens: its rank (position in
// the merges list, lower merges first) and the id of the merged token.
type mergeRule struct {
	rank, id int32
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// bpeModel is a byte-level BPE model: every pre-tokenized word starts as one token per
// byte and adjacent pairs are merged by rank exactly as Hugging Face tokenizers'
// Word::merge_all does (lowest rank first, leftmost among equal ranks).
type bpeModel struct {
	byteID [256]int32
	merges map[uint64]mergeRule
	// ignoreMerges: a word that is itself a vocabulary entry becomes that single token.
	ignoreMerges bool
	vocab        map[string]int // kept only when ignoreMerges is set
	bytes        *byteLevel
	cache        wordCache
}

// appendWord appends the ids of one pre-tokenized word (raw bytes).
func (m *bpeModel) appendWord(dst []int, word string) []int {
	switch len(word) {
	case 0:
		return dst
	case 1:
		return append(dst, int(m.byteID[word[0]]))
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[m.bytes.encode(word)]; ok {
			return append(dst, id)
		}
	}
	if ids, ok := m.cache.get(word); ok {
		return append(dst, ids...)
	}
	n := len(dst)
	dst = m.merge(dst, word)
	m.cache.put(word, dst[n:])
	return dst
}

// symbol is one token of a word being merged, in a doubly linked list over the bytes.
type symbol struct {
	id         int32
	prev, next int32 // -1 at the ends
	gone       bool  // merged into its left neighbour
}

// candidate is a queued merge of the symbol at pos with its right neighbour.
type candidate struct {
	rank, pos, id int32
}

func (a candidate) less(b candidate) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.pos < b.pos)
}

// mergeQueue is a binary min-heap of candidates ordered by (rank, pos).
type mergeQueue []candidate

func (q *mergeQueue) push(c candidate) {
	h := append(*q, c)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	*q = h
}

func (q *mergeQueue) pop() candidate {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(h) && h[l].less(h[small]) {
			small = l
		}
		if r := l + 1; r < len(h) && h[r].less(h[small]) {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	*q = h
	return top
}

// merge runs the BPE merges on word and appends the resulting ids to dst.
func (m *bpeModel) merge(dst []int, word string) []int {
	n := len(word)
	syms := make([]symbol, n)
	for i := range n {
		syms[i] = symbol{id: m.byteID[word[i]], prev: int32(i - 1), next: int32(i + 1)}
	}
	syms[n-1].next = -1

	queue := make(mergeQueue, 0, n)
	for i := range n - 1 {
		if r, ok := m.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			queue.push(candidate{rank: r.rank, pos: int32(i), id: r.id})
		}
	}
	for len(queue) > 0 {
		top := queue.pop()
		s := &syms[top.pos]
		if s.gone || s.next < 0 {
			continue
		}
		right := syms[s.next]
		// Skip entries made stale by earlier merges: the pair now at pos must still
		// produce the queued token.
		if r, ok := m.merges[pairKey(s.id, right.id)]; !ok || r.id != top.id {
			continue
		}
		syms[s.next].gone = true
		s.id = top.id
		s.next = right.next
		if s.next >= 0 {
			syms[s.next].prev = top.pos
		}
		if s.prev >= 0 {
			if r, ok := m.merges[pairKey(syms[s.prev].id, s.id)]; ok {
				queue.push(candidate{rank: r.rank, pos: s.prev, id: r.id})
			}
		}
		if s.next >= 0 {
			if r, ok := m.merges[pairKey(s.id, syms[s.next].id)]; ok {
				queue.push(candidate{rank: r.rank, pos: top.pos, id: r.id})
			}
		}
	}
	for i := int32(0); i >= 0; i = syms[i].next {
		dst = append(dst, int(syms[i].id))
	}
	return dst
}

const (
	cacheCapacity   = 10000 // words; the cache is emptied when full
	maxCachedLength = 256   // bytes; longer words are not cached
)

// wordCache memoises the ids of recently seen words. It is safe for concurrent use.
type wordCache struct {
	mu    sync.RWMutex
	words map[string][]int
}

func (c *wordCache) get(word string) ([]int, bool) {
	c.mu.RLock()
	ids, ok := c.words[word]
	c.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(word string, ids []int) {
	if len(word) > maxCachedLength {
		return
	}
	ids = append([]int(nil), ids...)
	c.mu.Lock()
	if c.words == nil || len(c.words) >= cacheCapacity {
		c.words = make(map[string][]int)
	}
	c.words[strings.Clone(word)] = ids // word may be a slice of a large prompt
	c.mu.Unlock()
}
