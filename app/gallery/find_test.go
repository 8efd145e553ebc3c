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

func TestFind(t *testing.T) {
	dir := t.TempDir()
	g, _, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var files []string
	for i, p := range []string{"A Red Castle at dusk", "a blue castle", "red fox", "Castle REDWOOD"} {
		e, err := g.Add(img, imageio.Metadata{Settings: schema.Settings{Prompt: p, Seed: uint64(i)}, Created: t0.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, e.File)
	}
	metapng.Write(t, dir, "plain.png", 8, 8, nil)
	if g, _, err = Open(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	g.SetFavourite(files[1], true)
	g.SetFavourite(files[3], true)
	prompts := func(es []Entry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.Meta.Prompt)
		}
		return fmt.Sprintf("%q", s)
	}
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{}, `["" "Castle REDWOOD" "red fox" "a blue castle" "A Red Castle at dusk"]`}, // plain.png is newest (file time)
		{Filter{Text: "  "}, `["" "Castle REDWOOD" "red fox" "a blue castle" "A Red Castle at dusk"]`},
		{Filter{Text: "castle RED"}, `["Castle REDWOOD" "A Red Castle at dusk"]`},
		{Filter{Text: "red"}, `["Castle REDWOOD" "red fox" "A Red Castle at dusk"]`},
		{Filter{Text: "castle", Favourites: true}, `["Castle REDWOOD" "a blue castle"]`},
		{Filter{Favourites: true}, `["Castle REDWOOD" "a blue castle"]`},
		{Filter{Text: "green"}, `[]`},
	} {
		if got := prompts(g.Find(c.f)); got != c.want {
			t.Errorf("Find(%+v) = %s, want %s", c.f, got, c.want)
		}
	}
	if !(Filter{Text: " "}).Empty() || (Filter{Favourites: true}).Empty() || (Filter{Text: "x"}).Empty() {
		t.Error("Filter.Empty")
	}
}

// gallery3000 makes a gallery folder of n small PNGs with metadata and an index, once per
// benchmark.
func gallery3000(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	png, err := imageio.EncodePNG(image.NewNRGBA(image.Rect(0, 0, 16, 16)), imageio.Metadata{Settings: schema.Settings{Prompt: "x"}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("img-%05d.png", i)), png, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	g, _, err := Open(context.Background(), dir, Options{})
	if err != nil || g.Len() != n {
		b.Fatalf("setup: %v, %d images", err, g.Len())
	}
	return dir
}

// BenchmarkOpen3000 opens a gallery of 3000 images with a valid index (the usual start):
// no image is decoded or hashed.
func BenchmarkOpen3000(b *testing.B) {
	dir := gallery3000(b, 3000)
	b.ResetTimer()
	for b.Loop() {
		g, rep, err := Open(context.Background(), dir, Options{})
		if err != nil || rep.Rebuilt || g.Len() != 3000 {
			b.Fatalf("%v %+v", err, rep)
		}
	}
}

// BenchmarkFilter3000 searches 3000 prompts for two words.
func BenchmarkFilter3000(b *testing.B) {
	g := &Gallery{byFile: map[string]*Entry{}}
	words := []string{"castle", "red", "fox", "lighthouse", "night", "portrait", "forest", "sea"}
	for i := range 3000 {
		p := fmt.Sprintf("a %s and a %s, photo %d", words[i%len(words)], words[(i/len(words))%len(words)], i)
		g.insertLocked(&Entry{File: fmt.Sprintf("img-%05d.png", i), HasMeta: true, Meta: imageio.Metadata{Settings: schema.Settings{Prompt: p}}, Favourite: i%7 == 0})
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n = len(g.Find(Filter{Text: "Red castle"}))
	}
	if n == 0 {
		b.Fatal("no match")
	}
}

// TestFindByAdapter: the search finds images by the file names of the adapters they were
// made with (issue 19), also after the gallery is opened again from its index; words of the
// prompt and of an adapter name combine.
func TestFindByAdapter(t *testing.T) {
	dir := t.TempDir()
	g, _, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, m := range []imageio.Metadata{
		{Settings: schema.Settings{Prompt: "a castle"}, Adapters: []imageio.Adapter{{File: "Watercolor_Style-v2.safetensors", SHA256: "ab", Strength: 0.8}}},
		{Settings: schema.Settings{Prompt: "a fox"}, Adapters: []imageio.Adapter{{File: "pixel.safetensors"}, {File: "watercolor_mini.safetensors"}}},
		{Settings: schema.Settings{Prompt: "watercolour fox"}},
	} {
		m.Created = t0.Add(time.Duration(i) * time.Minute)
		if _, err := g.Add(img, m); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 2 {
		for _, c := range []struct{ text, want string }{
			{"watercolor", `["a fox" "a castle"]`},
			{"WATERCOLOR_style", `["a castle"]`},
			{"fox pixel", `["a fox"]`},
			{"castle pixel", `[]`},
		} {
			var got []string
			for _, e := range g.Find(Filter{Text: c.text}) {
				got = append(got, e.Meta.Prompt)
			}
			if s := fmt.Sprintf("%q", got); s != c.want && !(c.want == "[]" && got == nil) {
				t.Errorf("round %d: Find(%q) = %s, want %s", round, c.text, s, c.want)
			}
		}
		if g, _, err = Open(context.Background(), dir, Options{}); err != nil {
			t.Fatal(err)
		}
	}
}
