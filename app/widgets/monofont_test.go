package widgets

import (
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
)

// Issue 36 item 20: "model_index.json" read "model index.json". Fyne draws a text into a
// texture of its measured height with the baseline rounded up to a whole pixel; the
// underscore of its monospace font reached exactly the font's descent and was cut. With
// the theme's fonts the underscore lies inside the texture at every scale.
func TestUnderscoreInsideTheText(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(Theme())
	size := theme.TextSize()
	for _, st := range []fyne.TextStyle{{}, {Monospace: true}, {Bold: true}} {
		f, err := opentype.Parse(Theme().Font(st).Content())
		if err != nil {
			t.Fatal(err)
		}
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: float64(size), DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := face.GlyphBounds('_')
		under := float64(b.Max.Y) / 64 // below the baseline, px at scale 1
		ms, base := a.Driver().RenderedTextSize("model_index.json", size, st, nil)
		for s := 1.0; s <= 3; s += 0.05 {
			top := math.Ceil(float64(base) * s)
			if bottom, height := top+under*s, math.Ceil(float64(ms.Height)*s); bottom > height {
				t.Errorf("style %+v at scale %.2f: the underscore reaches %.2f px, the text is %v px high", st, s, bottom, height)
				break
			}
		}
	}
}

// withMoreDescent refuses what is not a font, and leaves the glyphs' sizes alone.
func TestWithMoreDescent(t *testing.T) {
	if _, ok := withMoreDescent([]byte("not a font"), 0.1); ok {
		t.Error("a text is taken as a font")
	}
	a := test.NewTempApp(t)
	a.Settings().SetTheme(Theme())
	plain, _ := a.Driver().RenderedTextSize("model_index.json", 14, fyne.TextStyle{}, theme.DefaultTheme().Font(fyne.TextStyle{Monospace: true}))
	mono, base := a.Driver().RenderedTextSize("model_index.json", 14, fyne.TextStyle{}, monoFont())
	if mono.Width != plain.Width || mono.Height <= plain.Height || base != 13 {
		t.Errorf("Fyne's mono font measures %v, ours %v (baseline %v)", plain, mono, base)
	}
}
