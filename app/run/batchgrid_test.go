package run

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2/theme"

	"kleinbild/app/gallery"
)

// Issue 28 item 10: the run's grid says "1 image", not "1 images".
func TestImagesTextPlural(t *testing.T) {
	if imagesText(1) != "1 image" || imagesText(3) != "3 images" {
		t.Errorf("imagesText: %q %q", imagesText(1), imagesText(3))
	}
}

// A run of several images adds one row of tiles under the viewer, its count and Close at the
// row's end: a title row above it left a 4-image run's picture 196 px tall at 1024×600.
func TestBatchGridIsOneRow(t *testing.T) {
	rn := gridRunner(t)
	var run []gallery.Entry
	for i := range 4 {
		run = append(run, gallery.Entry{File: fmt.Sprintf("fox-%d.png", i)})
	}
	rn.showRun(run)
	b := &rn.Batch
	if !b.Box.Visible() || b.Title.Text != "4 images" || len(b.Tiles) != 4 {
		t.Fatalf("the run's grid: shown %v, count %q, %d tiles", b.Box.Visible(), b.Title.Text, len(b.Tiles))
	}
	if got, tile := b.Box.MinSize().Height, b.Tiles[0].MinSize().Height; got > tile+2*theme.Padding() {
		t.Errorf("the run's grid is %v px tall, its tiles %v", got, tile)
	}
}

// Issue 36 item 19: ← and → go along the grid shown and stop at its ends; a file outside
// it, or a closed grid, leaves them to the gallery.
func TestBatchStepStopsAtTheEnds(t *testing.T) {
	rn := gridRunner(t)
	rn.showRun([]gallery.Entry{{File: "a.png"}, {File: "b.png"}, {File: "c.png"}})
	cases := []struct {
		file  string
		delta int
		want  string
		ok    bool
	}{
		{"a.png", 1, "b.png", true},
		{"b.png", 1, "c.png", true},
		{"c.png", 1, "c.png", true},
		{"a.png", -1, "a.png", true},
		{"other.png", 1, "", false},
	}
	for _, c := range cases {
		if got, ok := rn.BatchStep(c.file, c.delta); got != c.want || ok != c.ok {
			t.Errorf("BatchStep(%s, %d) = %s, %v; want %s, %v", c.file, c.delta, got, ok, c.want, c.ok)
		}
	}
	rn.hideBatch()
	if got, ok := rn.BatchStep("a.png", 1); ok {
		t.Errorf("with the grid closed BatchStep gives %s", got)
	}
}
