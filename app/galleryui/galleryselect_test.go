package galleryui

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// lightTheme is the default theme always in its light variant.
type lightTheme struct{ fyne.Theme }

func (l lightTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return l.Theme.Color(n, theme.VariantLight)
}

// luminance is the WCAG relative luminance of c.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xFFFF
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// over blends c (non-premultiplied alpha) over an opaque base.
func over(c color.NRGBA, base color.Color) color.Color {
	br, bg, bb, _ := base.RGBA()
	a := float64(c.A) / 255
	mix := func(f uint8, b uint32) uint8 { return uint8(a*float64(f) + (1-a)*float64(b>>8) + 0.5) }
	return color.NRGBA{R: mix(c.R, br), G: mix(c.G, bg), B: mix(c.B, bb), A: 255}
}

// Issue 22 item 12: the star on a thumbnail sits on a backdrop, so that in the light theme
// its dark outline keeps a WCAG contrast of at least 3:1 even on a black image.
func TestStarHasBackdropInLightTheme(t *testing.T) {
	h := galleryHarness(t, t.TempDir(), "a dark night")
	h.ui.App.Settings().SetTheme(lightTheme{theme.DefaultTheme()})
	cell := galleryCellFor(t, h.ui, "img-00.png")
	var disc *canvas.Circle
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *canvas.Circle:
			disc = v
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	walk(cell)
	if disc == nil {
		t.Fatal("the star has no backdrop")
	}
	bd := color.NRGBAModel.Convert(backdropColor()).(color.NRGBA)
	fg := theme.Color(theme.ColorNameForeground)
	for _, base := range []color.Color{color.Black, color.White} {
		l1, l2 := luminance(fg), luminance(over(bd, base))
		ratio := (math.Max(l1, l2) + 0.05) / (math.Min(l1, l2) + 0.05)
		if ratio < 3 {
			t.Errorf("star on a %v image: contrast %.2f:1", base, ratio)
		}
	}
}

// Issue 22 item 12: Shift-click ticks a range from the image shown (or the last ticked),
// Ctrl+A and "Select all" tick every image.
func TestShiftClickRangeAndSelectAll(t *testing.T) {
	h := galleryHarness(t, t.TempDir(), "a", "b", "c", "d", "e", "f")
	u := h.ui
	g := &u.gal
	shift := fyne.KeyModifier(0)
	g.mods = func() fyne.KeyModifier { return shift }
	test.Tap(galleryCellFor(t, u, g.Visible[1].File))
	if g.selecting || u.view.Shown.File != g.Visible[1].File {
		t.Fatalf("a plain click: selecting %v, shown %s", g.selecting, u.view.Shown.File)
	}
	shift = fyne.KeyModifierShift
	test.Tap(galleryCellFor(t, u, g.Visible[4].File))
	if !g.selecting || len(g.checkedEntries()) != 4 || g.selLabel.Text != "4 selected" {
		t.Fatalf("Shift-click from 1 to 4: selecting %v, %d ticked", g.selecting, len(g.checkedEntries()))
	}
	for _, e := range g.checkedEntries() {
		if i := g.IndexOf(e.File); i < 1 || i > 4 {
			t.Errorf("image %d ticked", i)
		}
	}
	// From the last ticked (4) back to 2: still ticked, nothing else changes.
	test.Tap(galleryCellFor(t, u, g.Visible[2].File))
	if n := len(g.checkedEntries()); n != 4 {
		t.Errorf("Shift-click inside the range: %d ticked", n)
	}
	shift = 0
	g.SetSelecting(false)
	sc := h.win.Canvas().(fyne.Shortcutable)
	sc.TypedShortcut(&fyne.ShortcutSelectAll{})
	if !g.selecting || len(g.checkedEntries()) != 6 || g.DeleteSel.Text != "Delete 6" {
		t.Errorf("Ctrl+A: selecting %v, %d ticked, %q", g.selecting, len(g.checkedEntries()), g.DeleteSel.Text)
	}
	g.SetSelecting(false)
	g.SetSelecting(true)
	test.Tap(findButton(g.SelectBar, "Select all"))
	if n := len(g.checkedEntries()); n != 6 {
		t.Errorf("Select all ticked %d", n)
	}
}
