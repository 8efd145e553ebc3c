package galleryui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestCompareTwoImages: with two gallery images checked, Compare opens the A/B window with
// both images side by side (each decoded at its own size, its settings under it); Swap
// exchanges the sides; with one or three checked Compare is disabled.
func TestCompareTwoImages(t *testing.T) {
	h := newHarness(t, sizedGallery(t, "a lighthouse", [2]int{64, 64}, [2]int{128, 64}, [2]int{64, 128}), true)
	u := h.ui
	g := &u.gal
	g.SetSelecting(true)
	files := []string{g.Visible[0].File, g.Visible[1].File, g.Visible[2].File}
	g.CellTapped(files[0])
	if !g.CompareSel.Disabled() {
		t.Fatal("Compare is enabled with one image checked")
	}
	g.CellTapped(files[1])
	if g.CompareSel.Disabled() {
		t.Fatal("Compare is disabled with two images checked")
	}
	g.CellTapped(files[2])
	if !g.CompareSel.Disabled() {
		t.Fatal("Compare is enabled with three images checked")
	}
	g.CellTapped(files[2])
	test.Tap(g.CompareSel)
	c := g.cmp
	if c == nil {
		t.Fatal("Compare opened no window")
	}
	h.waitFor("both images to load", 10*time.Second, func() bool { return c.Parts().Images[0].Image != nil && c.Parts().Images[1].Image != nil })
	want := [2][2]int{{g.Visible[0].Meta.Width, g.Visible[0].Meta.Height}, {g.Visible[1].Meta.Width, g.Visible[1].Meta.Height}}
	for i := range 2 {
		b := c.Parts().Images[i].Image.Bounds()
		if c.Parts().Entries[i].File != files[i] || b.Dx() != want[i][0] || b.Dy() != want[i][1] || !strings.Contains(c.Parts().Caps[i].Text, files[i]) {
			t.Fatalf("side %d shows %s at %v (caption %q), want %s at %v", i, c.Parts().Entries[i].File, b, c.Parts().Caps[i].Text, files[i], want[i])
		}
	}
	// Issue 28 item 10: the wheel zooms, both sides alike; a double-click goes back to fit.
	c.Parts().Win.Resize(fyne.NewSize(800, 500))
	c.Parts().Images[0].Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(50, 50)}, Scrolled: fyne.Delta{DY: 10}})
	s0, _, fit0 := c.Parts().Images[0].View()
	s1, _, fit1 := c.Parts().Images[1].View() // at the same scale (these two differ in size, so the place differs)
	if fit0 || fit1 || s0 != s1 {
		t.Errorf("after the wheel: side A scale %v (fit %v), side B %v (fit %v)", s0, fit0, s1, fit1)
	}
	c.Parts().Images[1].DoubleTapped(&fyne.PointEvent{})
	if _, _, fit := c.Parts().Images[0].View(); !fit {
		t.Error("a double-click on B left A zoomed")
	}
	test.Tap(findButton(c.Parts().Win.Content(), "Swap sides"))
	h.waitFor("the swapped images", 10*time.Second, func() bool {
		return c.Parts().Images[0].Image != nil && c.Parts().Images[0].Image.Bounds().Dx() == want[1][0] && c.Parts().Images[0].Image.Bounds().Dy() == want[1][1]
	})
	if c.Parts().Entries[0].File != files[1] || c.Parts().Entries[1].File != files[0] {
		t.Fatalf("after Swap: %s | %s", c.Parts().Entries[0].File, c.Parts().Entries[1].File)
	}
	c.Parts().Win.Close()
	if g.cmp != nil {
		t.Fatal("the closed A/B window is still remembered")
	}
}

// TestCompareWipe: side by side, panning one image pans the other; Wipe shows A and B over each other at the zoom the sides had, the
// slider moves the border between them, zooming the wipe zooms both, and back side by
// side both halves keep the wipe's zoom.
func TestCompareWipe(t *testing.T) {
	h := newHarness(t, sizedGallery(t, "a lighthouse", [2]int{64, 64}, [2]int{64, 64}), true)
	u := h.ui
	g := &u.gal
	g.openCompare(g.Visible[0], g.Visible[1])
	c := g.cmp
	h.waitFor("both images to load", 10*time.Second, func() bool { return c.Parts().Images[0].Image != nil && c.Parts().Images[1].Image != nil })
	c.Parts().Win.Resize(fyne.NewSize(800, 500))
	c.Parts().Images[0].Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(50, 50)}, Scrolled: fyne.Delta{DY: 10}})
	s0, _, _ := c.Parts().Images[0].View()
	// Side by side, dragging one image moves the other alike (both are 64×64 here).
	_, before, _ := c.Parts().Images[0].View()
	c.Parts().Images[1].Dragged(&fyne.DragEvent{Dragged: fyne.NewDelta(-7, -5)})
	_, offA, _ := c.Parts().Images[0].View()
	_, offB, _ := c.Parts().Images[1].View()
	if offA != offB || offA == before {
		t.Errorf("after dragging B: A's offset %v (was %v), B's %v", offA, before, offB)
	}

	test.Tap(c.Parts().WipeOn)
	if c.Parts().WipePane.Visible() == c.Parts().Halves.Visible() || c.Parts().Wipe.Image != c.Parts().Images[0].Image || c.Parts().Wipe.Other() != c.Parts().Images[1].Image {
		t.Fatalf("Wipe: wipe shown %v, halves shown %v, images %p %p", c.Parts().WipePane.Visible(), c.Parts().Halves.Visible(), c.Parts().Wipe.Image, c.Parts().Wipe.Other())
	}
	if s, _, fit := c.Parts().Wipe.View(); fit || s != s0 {
		t.Errorf("the wipe's scale %v (fit %v), the sides had %v", s, fit, s0)
	}
	// The slider spans the picture on screen, not the window (issue 36 defect 16).
	c.Parts().Split.SetValue(0.25)
	scale, off, _ := c.Parts().Wipe.View()
	left, right := max(0, off.X), min(c.Parts().Wipe.Size().Width, off.X+64*scale)
	if x := left + 0.25*(right-left); c.Parts().Wipe.Split != 0.25 || c.Parts().Wipe.OtherFrom() > x || c.Parts().Wipe.OtherFrom() < x-scale {
		t.Errorf("slider at 0.25: split %v, B from %v (picture %v..%v)", c.Parts().Wipe.Split, c.Parts().Wipe.OtherFrom(), left, right)
	}
	c.Parts().Wipe.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}, Scrolled: fyne.Delta{DY: 10}})
	s1, _, _ := c.Parts().Wipe.View()
	if s1 <= s0 {
		t.Fatalf("the wheel on the wipe: scale %v, was %v", s1, s0)
	}
	test.Tap(c.Parts().WipeOn)
	a, _, _ := c.Parts().Images[0].View()
	b, _, _ := c.Parts().Images[1].View()
	if !c.Parts().Halves.Visible() || c.Parts().WipePane.Visible() || a != s1 || b != s1 {
		t.Errorf("side by side again: halves %v, sides' scales %v %v, want the wipe's %v", c.Parts().Halves.Visible(), a, b, s1)
	}
}
