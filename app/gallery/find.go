package gallery

import (
	"strings"

	"kleinbild/engine/imageio"
)

// Filter selects images for Find.
type Filter struct {
	// Text keeps images whose prompt or adapter file names contain every word of it,
	// ignoring case.
	Text string
	// Favourites keeps only starred images.
	Favourites bool
}

// Empty reports whether f keeps every image.
func (f Filter) Empty() bool { return !f.Favourites && len(strings.Fields(f.Text)) == 0 }

// Find returns the images f keeps, newest first. It takes time linear in the gallery's size
// and reads no files.
func (g *Gallery) Find(f Filter) []Entry {
	words := strings.Fields(strings.ToLower(f.Text))
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]Entry, 0, len(g.items))
	for _, e := range g.items {
		if f.Favourites && !e.Favourite {
			continue
		}
		if matchAll(e.search, words) {
			out = append(out, *e)
		}
	}
	return out
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
func searchText(m imageio.Metadata) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(m.Prompt))
	for _, a := range m.Adapters {
		b.WriteString("\n")
		b.WriteString(strings.ToLower(a.File))
	}
	return b.String()
}
