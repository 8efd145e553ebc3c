package widgets

import (
	"image"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func solid(w, h int, c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

// TestWipeSplitsTwoImages: the first image shows left of the divider and the second (half
// the size, stretched to the first's) right of it, in the painted window; moving the
// divider moves the border; zooming and panning move both images together, the second's
// part always the columns of the first beyond the divider.
func TestWipeSplitsTwoImages(t *testing.T) {
	test.NewTempApp(t)
	w := NewWipe()
	win := test.NewTempWindow(t, w)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(200, 100))
	red, blue := color.NRGBA{255, 0, 0, 255}, color.NRGBA{0, 0, 255, 255}
	w.SetImages(solid(100, 100, red), solid(50, 50, blue)) // fitted: x 50..150
	isRed := func(img image.Image, x, y int) bool {
		r, _, b, _ := img.At(x, y).RGBA()
		return r > 0x8000 && b < 0x8000
	}
	isBlue := func(img image.Image, x, y int) bool {
		r, _, b, _ := img.At(x, y).RGBA()
		return b > 0x8000 && r < 0x8000
	}
	shot := win.Canvas().Capture()
	if !isRed(shot, 80, 50) || !isBlue(shot, 120, 50) || w.OtherFrom() != 100 {
		t.Fatalf("split ½: left %v, right %v, second from %v", shot.At(80, 50), shot.At(120, 50), w.OtherFrom())
	}
	// The split is a fraction of the picture, not of the widget (issue 36 defect 16: the
	// slider's first and last quarters did nothing): 0.7 is 70 % across the picture.
	w.SetSplit(0.7)
	shot = win.Canvas().Capture()
	if !isRed(shot, 117, 50) || !isBlue(shot, 123, 50) || w.OtherFrom() != 120 {
		t.Errorf("split 0.7: %v at 117, %v at 123, second from %v", shot.At(117, 50), shot.At(123, 50), w.OtherFrom())
	}
	for _, c := range []struct{ split, from float32 }{{0.1, 60}, {0.9, 140}, {0, 50}} {
		w.SetSplit(c.split)
		if w.OtherFrom() != c.from || w.ShownOther() == nil {
			t.Errorf("split %v: second from %v, want %v", c.split, w.OtherFrom(), c.from)
		}
	}
	w.SetSplit(0.5)
	// Zoom 4× about the divider, then pan: both images share the view.
	w.zoomBy(4, fyne.NewPos(100, 50))
	w.pan(fyne.NewDelta(-30, 0))
	scale, off, fit := w.View()
	if fit || scale <= 1 {
		t.Fatalf("after zooming: scale %v fit %v", scale, fit)
	}
	col := int((100 - off.X) / scale) // the first image's column at the divider
	if got := w.cropB.Min.X; got != col/2 {
		t.Errorf("the second image's part starts at its column %d, want %d (the first's %d)", got, col/2, col)
	}
	if want := off.X + float32(col)*scale; w.OtherFrom() != want {
		t.Errorf("second from %v, want %v", w.OtherFrom(), want)
	}
}
