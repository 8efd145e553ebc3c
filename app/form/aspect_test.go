package form

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/internal/testfix/metapng"
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

// TestAspectMenuAndImageSize drives the form: the aspect menu reshapes the current area,
// and "use the image's size" says why it takes none with no image, and takes the first
// reference's. (The viewed image's, after a run, is root app's
// TestImageSizeFromTheViewerAndReferences.)
func TestAspectMenuAndImageSize(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	c.SetSize(512, 512)
	c.aspect.SetSelected("16:9")
	if c.Width.Text != "688" || c.Height.Text != "384" || c.aspect.Selected != "16:9" {
		t.Fatalf("16:9 from 512²: %s×%s (menu %q), want 688×384", c.Width.Text, c.Height.Text, c.aspect.Selected)
	}
	c.aspect.SetSelected("2:3")
	if c.Width.Text != "416" || c.Height.Text != "624" || c.aspect.Selected != "2:3" {
		t.Fatalf("2:3: %s×%s (menu %q), want 416×624", c.Width.Text, c.Height.Text, c.aspect.Selected)
	}
	c.useImageSize()
	if c.Width.Text != "416" || c.sh.Status.Text == "" {
		t.Fatalf("no image: size %s×%s changed, status %q", c.Width.Text, c.Height.Text, c.sh.Status.Text)
	}
	*c.Refs.(*refPaths) = refPaths{metapng.Write(t, t.TempDir(), "ref.png", 83, 69, nil)}
	b := findTipButton(c.Box, UseSizeTip)
	if b == nil {
		t.Fatal("no button to use the image's size")
	}
	test.Tap(b)
	if c.Width.Text != "80" || c.Height.Text != "64" {
		t.Fatalf("reference 83×69: size %s×%s, want 80×64", c.Width.Text, c.Height.Text)
	}
}

// Issue 36 item 24: the aspect menu shows the ratio of the size in the fields, however it
// got there (typed, a preset, restored), and none for a size of no listed ratio.
func TestAspectMenuShowsTheRatio(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	for _, tc := range []struct {
		w, h int
		want string
	}{{1024, 1024, "1:1"}, {1024, 576, "16:9"}, {768, 1024, "3:4"}, {1200, 400, ""}, {832, 1248, "2:3"}} {
		c.Width.SetText(strconv.Itoa(tc.w))
		c.Height.SetText(strconv.Itoa(tc.h))
		if c.aspect.Selected != tc.want {
			t.Errorf("%d×%d typed: the aspect menu shows %q, want %q", tc.w, tc.h, c.aspect.Selected, tc.want)
		}
	}
	if c.Width.Text != "832" || c.Height.Text != "1248" {
		t.Errorf("showing the ratio changed the size to %s×%s", c.Width.Text, c.Height.Text)
	}
	c.Width.SetText("1200")
	c.Height.SetText("400")
	if p := c.aspect.PlaceHolder; !strings.Contains(p, "3.00:1") {
		t.Errorf("1200×400: the aspect menu's placeholder %q does not give the ratio", p)
	}
}
