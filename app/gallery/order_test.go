package gallery

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/internal/testfix/metapng"
)

// sortedGallery holds five images of two models and two sizes made a day apart (the last
// one now), and plain.png without metadata.
func sortedGallery(t *testing.T, now time.Time) *Gallery {
	t.Helper()
	dir := t.TempDir()
	g, _, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i, m := range []imageio.Metadata{
		{Settings: schema.Settings{Prompt: "zebra", Width: 512, Height: 512}, Model: "klein-4b"},
		{Settings: schema.Settings{Prompt: "Apple", Width: 1024, Height: 768}, Model: "klein-9b"},
		{Settings: schema.Settings{Prompt: "", Width: 512, Height: 512}, Model: "klein-4b"},
		{Settings: schema.Settings{Prompt: "apple", Width: 1024, Height: 768}, Model: "klein-4b"},
		{Settings: schema.Settings{Prompt: "  mango", Width: 512, Height: 512}, Model: "klein-9b"},
	} {
		m.Seed = uint64(i)
		m.Created = now.Add(time.Duration(i-4) * 24 * time.Hour)
		if _, err := g.Add(img, m); err != nil {
			t.Fatal(err)
		}
	}
	metapng.Write(t, dir, "plain.png", 8, 8, nil)
	if g, _, err = Open(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestFindOrderAndFilters(t *testing.T) {
	now := time.Now()
	g := sortedGallery(t, now)
	seeds := func(es []Entry) string {
		var s []string
		for _, e := range es {
			if !e.HasMeta {
				s = append(s, "plain")
				continue
			}
			s = append(s, fmt.Sprint(e.Meta.Seed))
		}
		return fmt.Sprint(s)
	}
	for _, c := range []struct {
		name string
		f    Filter
		want string
	}{
		{"newest", Filter{}, "[plain 4 3 2 1 0]"}, // plain.png's file time is now
		{"oldest", Filter{Order: OrderOldest}, "[0 1 2 3 4 plain]"},
		// "Apple" and "apple" tie (newest first); no prompt comes last, leading spaces do not count.
		{"prompt", Filter{Order: OrderPrompt}, "[3 1 4 0 plain 2]"},
		{"model", Filter{Model: "klein-4b"}, "[3 2 0]"},
		{"size", Filter{Size: Size{1024, 768}}, "[3 1]"},
		{"model and size", Filter{Model: "klein-9b", Size: Size{512, 512}}, "[4]"},
		{"since", Filter{Since: now.Add(-36 * time.Hour)}, "[plain 4 3]"},
		{"text and order", Filter{Text: "APPLE", Order: OrderOldest}, "[1 3]"},
		{"unknown model", Filter{Model: "other"}, "[]"},
	} {
		if got := seeds(g.Find(c.f)); got != c.want {
			t.Errorf("%s: Find(%+v) = %s, want %s", c.name, c.f, got, c.want)
		}
	}
	for _, f := range []Filter{{Model: "m"}, {Size: Size{1, 1}}, {Since: now}} {
		if f.Empty() {
			t.Errorf("%+v is Empty", f)
		}
	}
	if !(Filter{Order: OrderPrompt}).Empty() {
		t.Error("an order alone filters nothing, but is not Empty")
	}
}

func TestFacets(t *testing.T) {
	g := sortedGallery(t, time.Now())
	// The index holds what the filters need: with the PNGs gone they still work.
	pngs, _ := filepath.Glob(filepath.Join(g.Dir(), "*.png"))
	for _, p := range pngs {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(g.Find(Filter{Model: "klein-9b", Order: OrderPrompt})); n != 2 {
		t.Errorf("found %d klein-9b images", n)
	}
	f := g.Facets()
	if got := fmt.Sprint(f.Models); got != "[klein-4b klein-9b]" {
		t.Errorf("models %s", got)
	}
	if got := fmt.Sprint(f.Sizes); got != "[1024×768 512×512]" {
		t.Errorf("sizes %s", got)
	}
}

func TestPeriodSince(t *testing.T) {
	loc := time.FixedZone("x", 3600)
	now := time.Date(2026, 5, 10, 15, 30, 0, 0, loc)
	for _, c := range []struct {
		p    Period
		want time.Time
	}{
		{AnyTime, time.Time{}},
		{Today, time.Date(2026, 5, 10, 0, 0, 0, 0, loc)},
		{Last7Days, time.Date(2026, 5, 3, 15, 30, 0, 0, loc)},
		{Last30Days, time.Date(2026, 4, 10, 15, 30, 0, 0, loc)},
	} {
		if got := c.p.Since(now); !got.Equal(c.want) {
			t.Errorf("%d.Since = %v, want %v", c.p, got, c.want)
		}
	}
}

func TestOrderNames(t *testing.T) {
	for _, o := range []Order{OrderNewest, OrderOldest, OrderPrompt} {
		if ParseOrder(o.String()) != o {
			t.Errorf("%v does not round-trip", o)
		}
	}
	if ParseOrder("bogus") != OrderNewest || ParseOrder("") != OrderNewest || Order(9).String() != "newest" {
		t.Error("an unknown order is not newest")
	}
}

// BenchmarkFind2000 filters and sorts a gallery of 2000 images by prompt (in memory: the
// index holds the metadata).
func BenchmarkFind2000(b *testing.B) {
	g := &Gallery{byFile: map[string]*Entry{}}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 2000 {
		g.insertLocked(&Entry{File: fmt.Sprintf("%04d.png", i), HasMeta: true, Meta: imageio.Metadata{
			Settings: schema.Settings{Prompt: fmt.Sprintf("prompt %d of a castle", (i*7919)%2000), Width: 512 + 64*(i%3), Height: 512},
			Model:    []string{"klein-4b", "klein-9b"}[i%2],
			Created:  t0.Add(time.Duration(i) * time.Minute),
		}})
	}
	g.sortLocked()
	f := Filter{Text: "castle", Model: "klein-4b", Since: t0.Add(time.Hour), Order: OrderPrompt}
	for b.Loop() {
		if len(g.Find(f)) == 0 {
			b.Fatal("nothing found")
		}
	}
}
