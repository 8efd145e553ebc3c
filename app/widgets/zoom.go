package widgets

import (
	"image"
	"math"

	"fyne.io/fyne/v2"
)

// zoomStep is the factor of one zoom step (a key press, a button, a wheel notch).
const zoomStep = 1.25

// zoomLevel is the magnification (screen pixels per image pixel) after m that a zoom key or
// button goes to: one zoomStep up (or down), stopping at the powers of two from 12.5 % to
// 800 % on the way, so that 100 %, 200 % and 400 % are reached exactly from any view.
func zoomLevel(m float32, up bool) float32 {
	const tol = 1.01 // a level within 1 % of m counts as m
	levels := [...]float32{1.0 / 8, 1.0 / 4, 1.0 / 2, 1, 2, 4, 8}
	if up {
		next := m * zoomStep
		for _, l := range levels {
			if l > m*tol {
				return min(next, l)
			}
		}
		return next
	}
	prev := m / zoomStep
	for i := len(levels) - 1; i >= 0; i-- {
		if levels[i] < m/tol {
			return max(prev, levels[i])
		}
	}
	return prev
}

// maxZoom is the largest magnification, in screen pixels per image pixel.
const maxZoom = 32

// zoomView is how an image lies in a viewport: scale is viewport units per image pixel
// and off is where the image's top-left corner lies, in viewport coordinates. When fit
// is set the view follows the viewport, fitting the whole image in it.
type zoomView struct {
	scale float32
	off   fyne.Position
	fit   bool
}

// fitScale is the scale at which an image of img pixels just fits in area (0 when
// either is empty).
func fitScale(img image.Point, area fyne.Size) float32 {
	if img.X <= 0 || img.Y <= 0 || area.Width <= 0 || area.Height <= 0 {
		return 0
	}
	return min(area.Width/float32(img.X), area.Height/float32(img.Y))
}

// fittedView shows the whole image centred in area.
func fittedView(img image.Point, area fyne.Size) zoomView {
	v := zoomView{scale: fitScale(img, area), fit: true}
	v.off = clampOffset(v.off, img, v.scale, area)
	return v
}

// scaleLimits are the smallest and largest scales for an image in area; actual is the
// scale at which one image pixel is one screen pixel. The image may shrink to fit (or
// to actual size, when that is smaller) and grow to maxZoom screen pixels per pixel.
func scaleLimits(img image.Point, area fyne.Size, actual float32) (lo, hi float32) {
	f := fitScale(img, area)
	lo = min(f, actual)
	hi = max(f, actual*maxZoom)
	return lo, hi
}

// clampOffset keeps the image on screen: an image smaller than the viewport along an
// axis is centred on it; a larger one covers the viewport with no gap at either edge.
func clampOffset(off fyne.Position, img image.Point, scale float32, area fyne.Size) fyne.Position {
	clamp := func(o, size, view float32) float32 {
		if size <= view {
			return (view - size) / 2
		}
		return min(0, max(view-size, o))
	}
	return fyne.NewPos(
		clamp(off.X, float32(img.X)*scale, area.Width),
		clamp(off.Y, float32(img.Y)*scale, area.Height))
}

// zoomAbout scales v by factor keeping the image point under pivot (viewport
// coordinates) where it is, within the scale limits; the result is clamped and no
// longer fitted.
func zoomAbout(v zoomView, factor float32, pivot fyne.Position, img image.Point, area fyne.Size, actual float32) zoomView {
	return zoomTo(v, v.scale*factor, pivot, img, area, actual)
}

// zoomTo sets v's scale to scale (within the limits) keeping the image point under pivot
// where it is.
func zoomTo(v zoomView, scale float32, pivot fyne.Position, img image.Point, area fyne.Size, actual float32) zoomView {
	lo, hi := scaleLimits(img, area, actual)
	if lo <= 0 || v.scale <= 0 || isBad(scale) {
		return fittedView(img, area)
	}
	scale = min(hi, max(lo, scale))
	r := scale / v.scale
	off := fyne.NewPos(pivot.X-(pivot.X-v.off.X)*r, pivot.Y-(pivot.Y-v.off.Y)*r)
	return zoomView{scale: scale, off: clampOffset(off, img, scale, area)}
}

// panBy moves the image by d, clamped; a fitted view stays as it is.
func panBy(v zoomView, d fyne.Delta, img image.Point, area fyne.Size) zoomView {
	if v.fit || isBad(d.DX) || isBad(d.DY) {
		return v
	}
	v.off = clampOffset(v.off.Add(d), img, v.scale, area)
	return v
}

// wheelFactor is the zoom factor for a scroll of dy units (a mouse wheel notch is 10;
// trackpads send many small ones), bounded so that one event never jumps far.
func wheelFactor(dy float32) float32 {
	if isBad(dy) {
		return 1
	}
	// A notch is 10 on macOS and 25 elsewhere (Fyne's scroll speeds), and fast turns come
	// accelerated: each event zooms at most one step, so a notch is one step everywhere
	// while a trackpad's small deltas still zoom smoothly.
	f := float32(math.Pow(zoomStep, float64(dy)/10))
	return min(zoomStep, max(1/zoomStep, f))
}

// visibleCrop is the part of an image of img pixels that v shows in area: the source
// rectangle in image pixels (rounded outwards to whole pixels) and where that rectangle
// is drawn. ok is false when nothing is visible.
func visibleCrop(v zoomView, img image.Point, area fyne.Size) (src image.Rectangle, pos fyne.Position, size fyne.Size, ok bool) {
	if v.scale <= 0 || img.X <= 0 || img.Y <= 0 || area.Width <= 0 || area.Height <= 0 {
		return src, pos, size, false
	}
	x0 := max(0, int(math.Floor(float64(-v.off.X/v.scale))))
	y0 := max(0, int(math.Floor(float64(-v.off.Y/v.scale))))
	x1 := min(img.X, int(math.Ceil(float64((area.Width-v.off.X)/v.scale))))
	y1 := min(img.Y, int(math.Ceil(float64((area.Height-v.off.Y)/v.scale))))
	if x1 <= x0 || y1 <= y0 {
		return src, pos, size, false
	}
	src = image.Rect(x0, y0, x1, y1)
	pos = fyne.NewPos(v.off.X+float32(x0)*v.scale, v.off.Y+float32(y0)*v.scale)
	size = fyne.NewSize(float32(x1-x0)*v.scale, float32(y1-y0)*v.scale)
	return src, pos, size, true
}

// rescaleView keeps the same picture on screen when the image is replaced by one of
// another resolution (a thumbnail by the full image, a preview by the result).
func rescaleView(v zoomView, from, to image.Point) zoomView {
	if v.fit || from.X <= 0 || to.X <= 0 {
		return v
	}
	v.scale *= float32(from.X) / float32(to.X)
	return v
}

func isBad(f float32) bool {
	return math.IsNaN(float64(f)) || math.IsInf(float64(f), 0)
}
