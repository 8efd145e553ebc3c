package form

import (
	"math"
	"testing"
)

// TestAspectSize: every preset ratio at small, default and large areas gives sides that
// are multiples of 16 within 64..1792, within 5 % of the ratio and (unless clamped) of
// the area.
func TestAspectSize(t *testing.T) {
	for _, r := range aspectRatios {
		for _, area := range []int{256 * 256, 512 * 512, 1024 * 1024, 1792 * 1792} {
			w, h := aspectSize(r.w, r.h, area)
			if w%16 != 0 || h%16 != 0 || w < minSide || h < minSide || w > maxSide || h > maxSide {
				t.Fatalf("%s at %d px: %d×%d is not a valid size", r.label, area, w, h)
			}
			want := float64(r.w) / float64(r.h)
			if got := float64(w) / float64(h); math.Abs(got/want-1) > 0.05 {
				t.Errorf("%s at %d px: %d×%d has ratio %.3f, want %.3f", r.label, area, w, h, got, want)
			}
			if area <= 1024*1024 && math.Abs(float64(w*h)/float64(area)-1) > 0.05 {
				t.Errorf("%s at %d px: %d×%d has area %d", r.label, area, w, h, w*h)
			}
		}
	}
	for _, c := range []struct{ iw, ih, w, h int }{
		{512, 768, 512, 768},    // already valid: kept
		{83, 69, 80, 64},        // rounded to multiples of 16
		{3000, 1000, 1792, 592}, // scaled into range, ratio kept
		{20, 1000, 64, 1792},    // a ratio beyond the range: clamped
	} {
		if w, h := imageSizeFor(c.iw, c.ih); w != c.w || h != c.h {
			t.Errorf("image %d×%d: size %d×%d, want %d×%d", c.iw, c.ih, w, h, c.w, c.h)
		}
	}
}
