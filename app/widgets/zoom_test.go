package widgets

import (
	"image"
	"math"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
)

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-3 }

// imagePoint is the image pixel position under the viewport point p.
func imagePoint(v zoomView, p fyne.Position) fyne.Position {
	return fyne.NewPos((p.X-v.off.X)/v.scale, (p.Y-v.off.Y)/v.scale)
}

func TestFittedViewCentresTheWholeImage(t *testing.T) {
	img := image.Pt(200, 100)
	v := fittedView(img, fyne.NewSize(400, 400))
	if !v.fit || !near(v.scale, 2) || !near(v.off.X, 0) || !near(v.off.Y, 100) {
		t.Errorf("fitted view %+v, want scale 2 at (0,100)", v)
	}
	v = fittedView(img, fyne.NewSize(100, 300))
	if !near(v.scale, 0.5) || !near(v.off.X, 0) || !near(v.off.Y, 125) {
		t.Errorf("fitted view %+v, want scale 0.5 at (0,125)", v)
	}
	for _, bad := range []zoomView{fittedView(image.Point{}, fyne.NewSize(100, 100)), fittedView(img, fyne.Size{})} {
		if bad.scale != 0 {
			t.Errorf("empty image or area: scale %v, want 0", bad.scale)
		}
	}
}

func TestClampOffsetKeepsTheImageOnScreen(t *testing.T) {
	img := image.Pt(100, 100)
	area := fyne.NewSize(200, 200)
	// Larger than the area (scale 4 → 400 units): no gap at either edge.
	for _, c := range []struct{ in, want fyne.Position }{
		{fyne.NewPos(50, 50), fyne.NewPos(0, 0)},
		{fyne.NewPos(-1000, -1000), fyne.NewPos(-200, -200)},
		{fyne.NewPos(-120, -30), fyne.NewPos(-120, -30)},
	} {
		if got := clampOffset(c.in, img, 4, area); got != c.want {
			t.Errorf("clampOffset(%v) at scale 4 = %v, want %v", c.in, got, c.want)
		}
	}
	// Smaller than the area: centred, wherever it was put.
	if got := clampOffset(fyne.NewPos(-500, 900), img, 1, area); got != fyne.NewPos(50, 50) {
		t.Errorf("small image offset %v, want centred (50,50)", got)
	}
	// Wider than the area but shorter: x clamped, y centred.
	if got := clampOffset(fyne.NewPos(10, 10), image.Pt(100, 20), 4, area); got != fyne.NewPos(0, 60) {
		t.Errorf("wide image offset %v, want (0,60)", got)
	}
}

func TestZoomKeepsThePointUnderThePivot(t *testing.T) {
	img := image.Pt(1000, 800)
	area := fyne.NewSize(500, 400)
	v := fittedView(img, area) // scale 0.5
	pivot := fyne.NewPos(120, 300)
	before := imagePoint(v, pivot)
	z := zoomAbout(v, 3, pivot, img, area, 1)
	if z.fit || !near(z.scale, 1.5) {
		t.Fatalf("zoomed view %+v, want scale 1.5 and not fitted", z)
	}
	if after := imagePoint(z, pivot); !near(after.X, before.X) || !near(after.Y, before.Y) {
		t.Errorf("image point under the pointer moved from %v to %v", before, after)
	}
	// Near an edge the clamp wins over the pivot: no gap appears.
	z = zoomAbout(v, 3, fyne.NewPos(0, 0), img, area, 1)
	if z.off.X > 0 || z.off.Y > 0 {
		t.Errorf("zoom at the corner left a gap: offset %v", z.off)
	}
}

func TestZoomStaysWithinLimits(t *testing.T) {
	img := image.Pt(1000, 800)
	area := fyne.NewSize(500, 400)
	v := fittedView(img, area)
	centre := fyne.NewPos(250, 200)
	out := zoomAbout(v, 0.001, centre, img, area, 1)
	if !near(out.scale, 0.5) {
		t.Errorf("zoomed far out: scale %v, want the fit scale 0.5", out.scale)
	}
	in := zoomAbout(v, 1e6, centre, img, area, 1)
	if !near(in.scale, maxZoom) {
		t.Errorf("zoomed far in: scale %v, want %v", in.scale, float32(maxZoom))
	}
	// A small image (fit scale 5) may shrink to actual size and grow past its fit.
	small := image.Pt(100, 80)
	sv := fittedView(small, area)
	if lo, hi := scaleLimits(small, area, 1); !near(lo, 1) || !near(hi, maxZoom) {
		t.Errorf("limits for a small image: %v..%v", lo, hi)
	}
	if got := zoomTo(sv, 1, centre, small, area, 1); !near(got.scale, 1) || got.off != fyne.NewPos(200, 160) {
		t.Errorf("small image at 100%%: %+v, want scale 1 centred at (200,160)", got)
	}
	// Bad input falls back to fitting rather than producing NaN.
	nan := float32(math.NaN())
	if got := zoomTo(v, nan, centre, img, area, 1); !got.fit || isBad(got.off.X) {
		t.Errorf("NaN scale gave %+v", got)
	}
	if got := zoomTo(zoomView{}, 2, centre, img, area, 1); !got.fit {
		t.Errorf("zoom from an unset view gave %+v, want fitted", got)
	}
}

func TestPanIsClamped(t *testing.T) {
	img := image.Pt(1000, 800)
	area := fyne.NewSize(500, 400)
	fit := fittedView(img, area)
	if got := panBy(fit, fyne.NewDelta(50, 50), img, area); got != fit {
		t.Errorf("panning a fitted image moved it: %+v", got)
	}
	v := zoomTo(fit, 1, fyne.NewPos(0, 0), img, area, 1) // top-left corner at (0,0)
	got := panBy(v, fyne.NewDelta(-100, -30), img, area)
	if got.off != fyne.NewPos(-100, -30) {
		t.Errorf("pan gave offset %v, want (-100,-30)", got.off)
	}
	got = panBy(got, fyne.NewDelta(-10000, 10000), img, area)
	if got.off != fyne.NewPos(-500, 0) {
		t.Errorf("pan far gave offset %v, want clamped (-500,0)", got.off)
	}
	if bad := panBy(v, fyne.NewDelta(float32(math.Inf(1)), 0), img, area); bad != v {
		t.Errorf("infinite pan gave %+v", bad)
	}
}

func TestWheelFactor(t *testing.T) {
	if f := wheelFactor(10); !near(f, zoomStep) {
		t.Errorf("one notch up: %v, want %v", f, float32(zoomStep))
	}
	if f := wheelFactor(-10); !near(f, 1/zoomStep) {
		t.Errorf("one notch down: %v, want %v", f, float32(1/zoomStep))
	}
	if f := wheelFactor(1); f <= 1 || f > 1.05 {
		t.Errorf("small trackpad step: %v, want slightly above 1", f)
	}
	// A notch on Linux and Windows is 25 (and accelerated turns more): still one step.
	// (Before: 25 zoomed 1.75x per notch, three notches from 179 % to 956 %.)
	for _, dy := range []float32{25, 125, 1e6} {
		if f := wheelFactor(dy); !near(f, zoomStep) {
			t.Errorf("wheel %v up: %v, want one step %v", dy, f, float32(zoomStep))
		}
		if f := wheelFactor(-dy); !near(f, 1/zoomStep) {
			t.Errorf("wheel %v down: %v, want one step %v", dy, f, float32(1/zoomStep))
		}
	}
	if wheelFactor(float32(math.NaN())) != 1 {
		t.Error("NaN wheel zooms")
	}
}

func TestVisibleCropCoversTheViewport(t *testing.T) {
	img := image.Pt(1000, 800)
	area := fyne.NewSize(500, 400)
	fit := fittedView(img, area)
	src, pos, size, ok := visibleCrop(fit, img, area)
	if !ok || src != image.Rect(0, 0, 1000, 800) || pos != fyne.NewPos(0, 0) || size != area {
		t.Errorf("fitted crop %v at %v size %v", src, pos, size)
	}
	// Deep zoom: only a few pixels are drawn, and they cover the whole viewport.
	v := zoomView{scale: 32, off: fyne.NewPos(-3210, -1605)}
	src, pos, size, ok = visibleCrop(v, img, area)
	if !ok {
		t.Fatal("nothing visible")
	}
	if src.Dx() > 17 || src.Dy() > 14 {
		t.Errorf("crop %v is larger than the viewport needs", src)
	}
	if pos.X > 0 || pos.Y > 0 || pos.X+size.Width < area.Width || pos.Y+size.Height < area.Height {
		t.Errorf("crop drawn at %v size %v does not cover %v", pos, size, area)
	}
	if src.Min != image.Pt(100, 50) {
		t.Errorf("crop starts at %v, want (100,50)", src.Min)
	}
	if _, _, _, ok := visibleCrop(zoomView{scale: 1, off: fyne.NewPos(600, 0)}, img, area); ok {
		t.Error("an image right of the viewport is reported visible")
	}
	if _, _, _, ok := visibleCrop(zoomView{}, img, area); ok {
		t.Error("a zero scale is reported visible")
	}
}

func TestRescaleViewKeepsTheSamePicture(t *testing.T) {
	v := zoomView{scale: 4, off: fyne.NewPos(-100, -50)}
	got := rescaleView(v, image.Pt(256, 256), image.Pt(1024, 1024))
	if !near(got.scale, 1) || got.off != v.off {
		t.Errorf("thumbnail to full image: %+v, want scale 1, same offset", got)
	}
	fit := zoomView{fit: true, scale: 2}
	if rescaleView(fit, image.Pt(256, 256), image.Pt(1024, 1024)) != fit {
		t.Error("a fitted view changed")
	}
}

// TestZoomLevels: zoom keys and buttons step by zoomStep but stop at the powers of two, so
// that 100 %, 200 % and 400 % are reached exactly from any start, and back the same way.
func TestZoomLevels(t *testing.T) {
	for _, start := range []float32{0.137, 0.5, 0.9999, 1, 1.25, 1.9} {
		m, seen := start, map[float32]bool{}
		for range 30 {
			next := zoomLevel(m, true)
			if next <= m || next > m*zoomStep*1.0001 {
				t.Errorf("zoom in from %v: %v, want above it by at most one step", m, next)
			}
			m = next
			seen[m] = true
		}
		for _, want := range []float32{2, 4} {
			if !seen[want] {
				t.Errorf("from %v, zooming in never reached %v%%: %v", start, want*100, seen)
			}
		}
		for range 60 {
			m = zoomLevel(m, false)
			seen[m] = true
		}
		if !seen[1] {
			t.Errorf("from %v, zooming in and out never reached 100%%", start)
		}
	}
	if got := zoomLevel(3.5, true); got != 4 {
		t.Errorf("zoom in from 350 %%: %v, want 4", got)
	}
	if got := zoomLevel(4, false); got != 3.2 {
		t.Errorf("zoom out from 400 %%: %v, want 3.2", got)
	}
	if got := zoomLevel(10, true); !near(got, 10*zoomStep) {
		t.Errorf("zoom in past the last level: %v", got)
	}
	if got := zoomLevel(0.1, false); !near(got, 0.1/zoomStep) {
		t.Errorf("zoom out past the first level: %v", got)
	}
}

// TestZoomInReaches400: the zoom-in key on a fitted image (shown at 31 %) gets to exactly
// 400 %.
func TestZoomInReaches400(t *testing.T) {
	z := NewZoomImage()
	z.SetImage(checkerboard(640, 480))
	z.Resize(fyne.NewSize(300, 200))
	var got []int
	for range 20 {
		z.ZoomIn()
		got = append(got, z.Percent())
	}
	if !slices.Contains(got, 400) {
		t.Errorf("zoom-in steps %v never hit 400 %%", got)
	}
}
