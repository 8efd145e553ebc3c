package gallery

import (
	"slices"
	"strings"
	"time"

	"kleinbild/engine/imageio"
)

// Filter selects images for Find and orders them.
type Filter struct {
	// Text keeps images whose prompt or adapter file names contain every word of it,
	// ignoring case.
	Text string
	// Favourites keeps only starred images.
	Favourites bool
	// Model keeps only images made with this model (Metadata.Model); "" keeps all.
	Model string
	// Size keeps only images of this size; the zero Size keeps all.
	Size Size
	// Since keeps only images created at or after it; the zero time keeps all.
	Since time.Time
	// Order is the order Find returns the images in (newest first by default).
	Order Order
}

// Empty reports whether f keeps every image (whatever its order).
func (f Filter) Empty() bool {
	return !f.Favourites && len(strings.Fields(f.Text)) == 0 && f.Model == "" && f.Size == (Size{}) && f.Since.IsZero()
}

// Find returns the images f keeps, in f.Order. It takes time linear in the gallery's size
// (n log n for the prompt order) and reads no files.
func (g *Gallery) Find(f Filter) []Entry {
	words := strings.Fields(strings.ToLower(f.Text))
	g.mu.RLock()
	defer g.mu.RUnlock()
	kept := make([]*Entry, 0, len(g.items))
	for _, e := range g.items {
		if f.keeps(e) && matchAll(e.search, words) {
			kept = append(kept, e)
		}
	}
	switch f.Order {
	case OrderOldest:
		slices.Reverse(kept)
	case OrderPrompt:
		// Stable: images of one prompt stay newest first. (Pointers: cheap to move.)
		slices.SortStableFunc(kept, func(a, b *Entry) int { return comparePrompts(a.promptKey(), b.promptKey()) })
	}
	out := make([]Entry, len(kept))
	for i, e := range kept {
		out[i] = *e
	}
	return out
}

// keeps applies f's favourites, model, size and date conditions to e.
func (f Filter) keeps(e *Entry) bool {
	switch {
	case f.Favourites && !e.Favourite:
		return false
	case f.Model != "" && (!e.HasMeta || e.Meta.Model != f.Model):
		return false
	case f.Size != (Size{}) && (!e.HasMeta || e.Meta.Width != f.Size.Width || e.Meta.Height != f.Size.Height):
		return false
	case !f.Since.IsZero() && e.Created().Before(f.Since):
		return false
	}
	return true
}

func matchAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// searchText is what Find matches for an image: its prompt and the file names of the
// adapters it was made with, lower-cased, on lines of their own (so that no word spans two).
// Its first line is the lower-cased prompt (promptKey).
func searchText(m imageio.Metadata) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(strings.ReplaceAll(m.Prompt, "\n", " ")))
	for _, a := range m.Adapters {
		b.WriteString("\n")
		b.WriteString(strings.ToLower(a.File))
	}
	return b.String()
}
