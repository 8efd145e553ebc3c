package gallery

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Order is the order Find returns images in.
type Order int

const (
	// OrderNewest shows the newest image first (the default).
	OrderNewest Order = iota
	// OrderOldest shows the oldest image first.
	OrderOldest
	// OrderPrompt sorts by prompt, A to Z ignoring case; images of one prompt newest first,
	// images without a prompt last.
	OrderPrompt
)

// orderNames are the Orders' stable names (kept in settings).
var orderNames = [...]string{OrderNewest: "newest", OrderOldest: "oldest", OrderPrompt: "prompt"}

// String is the order's stable name: "newest", "oldest" or "prompt".
func (o Order) String() string {
	if o < 0 || int(o) >= len(orderNames) {
		return orderNames[OrderNewest]
	}
	return orderNames[o]
}

// ParseOrder is the Order named s (String); an unknown name is OrderNewest.
func ParseOrder(s string) Order {
	if i := slices.Index(orderNames[:], s); i >= 0 {
		return Order(i)
	}
	return OrderNewest
}

// promptKey is what OrderPrompt sorts by: the lower-cased prompt without leading spaces.
func (e *Entry) promptKey() string {
	p, _, _ := strings.Cut(e.search, "\n")
	return strings.TrimSpace(p)
}

// comparePrompts orders prompt keys A to Z with the empty key last.
func comparePrompts(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return 1
	case b == "":
		return -1
	}
	return strings.Compare(a, b)
}

// Size is an image's size in pixels, as its metadata records it.
type Size struct{ Width, Height int }

// String is "W×H".
func (s Size) String() string { return fmt.Sprintf("%d×%d", s.Width, s.Height) }

// Facets are the models and sizes the gallery's images were made with, for the filters to
// offer. Images without metadata count for neither.
type Facets struct {
	// Models are the model names, sorted.
	Models []string
	// Sizes are the sizes, largest area first (then widest).
	Sizes []Size
}

// Facets collects the models and sizes in the index; it reads no files.
func (g *Gallery) Facets() Facets {
	models := map[string]bool{}
	sizes := map[Size]bool{}
	g.mu.RLock()
	for _, e := range g.items {
		if !e.HasMeta {
			continue
		}
		if e.Meta.Model != "" {
			models[e.Meta.Model] = true
		}
		if e.Meta.Width > 0 && e.Meta.Height > 0 {
			sizes[Size{e.Meta.Width, e.Meta.Height}] = true
		}
	}
	g.mu.RUnlock()
	var f Facets
	for m := range models {
		f.Models = append(f.Models, m)
	}
	slices.Sort(f.Models)
	for s := range sizes {
		f.Sizes = append(f.Sizes, s)
	}
	slices.SortFunc(f.Sizes, func(a, b Size) int {
		if c := cmp.Compare(b.Width*b.Height, a.Width*a.Height); c != 0 {
			return c
		}
		return cmp.Compare(b.Width, a.Width)
	})
	return f
}

// Period is a date filter: images of today, of the last 7 or 30 days, or of any time.
type Period int

const (
	// AnyTime keeps every image.
	AnyTime Period = iota
	// Today keeps images made since the last local midnight.
	Today
	// Last7Days keeps images made in the last 7×24 hours.
	Last7Days
	// Last30Days keeps images made in the last 30×24 hours.
	Last30Days
)

// Since is the earliest creation time p keeps at the time now (the zero time for AnyTime).
func (p Period) Since(now time.Time) time.Time {
	switch p {
	case Today:
		y, m, d := now.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	case Last7Days:
		return now.Add(-7 * 24 * time.Hour)
	case Last30Days:
		return now.Add(-30 * 24 * time.Hour)
	}
	return time.Time{}
}
