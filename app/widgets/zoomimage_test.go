package widgets

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

var (
	checkA = color.RGBA{R: 255, A: 255}
	checkB = color.RGBA{B: 255, A: 255}
)

// checkerboard is a w×h image of one-pixel cells, checkA where x+y is even.
func checkerboard(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := checkB
			if (x+y)%2 == 0 {
				c = checkA
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// glUpload reads img the way Fyne 2.7's GL driver turns an image into a texture
// (internal/painter/gl/texture.go imgToTexture): an *image.RGBA's Pix as packed rows of
// Rect's width, anything else drawn into a new RGBA from the point (0,0).
func glUpload(img image.Image) *image.RGBA {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	if rgba, ok := img.(*image.RGBA); ok {
		copy(out.Pix, rgba.Pix)
		return out
	}
	draw.Draw(out, out.Rect, img, image.Point{}, draw.Over)
	return out
}

// TestZoomedRasterIsCrisp zooms a checkerboard to 200 % and more and checks what the
// GL driver uploads and what the test driver paints: every cell keeps its colour. On a
// SubImage of the full image (the old raster) the GL upload reads rows with the parent's
// stride and the checkerboard turns into slanted stripes.
func TestZoomedRasterIsCrisp(t *testing.T) {
	test.NewTempApp(t)
	const n = 64
	z := NewZoomImage()
	w := test.NewWindow(z)
	defer w.Close()
	w.SetPadded(false)
	w.Resize(fyne.NewSize(120, 120))
	board := checkerboard(n, n)
	z.SetImage(board)
	for _, scale := range []float32{2, 4, 8} {
		z.zoomTo(scale, fyne.NewPos(60, 60))
		if z.Percent() != int(scale*100) {
			t.Fatalf("zoom %v: percent %d", scale, z.Percent())
		}
		tex := glUpload(z.Shown())
		crop := z.crop
		if tex.Rect.Dx() != crop.Dx() || tex.Rect.Dy() != crop.Dy() {
			t.Fatalf("zoom %v: raster %v for crop %v", scale, tex.Rect, crop)
		}
		bad := 0
		for y := 0; y < crop.Dy(); y++ {
			for x := 0; x < crop.Dx(); x++ {
				want := board.RGBAAt(crop.Min.X+x, crop.Min.Y+y)
				if tex.RGBAAt(x, y) != want {
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("zoom %v: %d of %d uploaded pixels differ from the checkerboard", scale, bad, crop.Dx()*crop.Dy())
		}
		// What the test driver paints: sample each enlarged pixel's centre.
		shot := w.Canvas().Capture()
		off := z.Offset()
		wrong := 0
		for sy := 0; sy < 120; sy++ {
			for sx := 0; sx < 120; sx++ {
				fx, fy := (float32(sx)+0.5-off.X)/scale, (float32(sy)+0.5-off.Y)/scale
				ix, iy := int(fx), int(fy)
				if fx-float32(ix) < 0.25 || fx-float32(ix) > 0.75 || fy-float32(iy) < 0.25 || fy-float32(iy) > 0.75 {
					continue // near a cell edge
				}
				if ix < 0 || iy < 0 || ix >= n || iy >= n {
					continue
				}
				r, _, b, _ := shot.At(sx, sy).RGBA()
				want := board.RGBAAt(ix, iy)
				if (r > 0x8000) != (want.R == 255) || (b > 0x8000) != (want.B == 255) {
					wrong++
				}
			}
		}
		if wrong > 0 {
			t.Errorf("zoom %v: %d painted pixels off the checkerboard", scale, wrong)
		}
	}
}
