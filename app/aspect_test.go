package app

import (
	"kleinbild/app/form"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestAspectMenuAndImageSize drives the form: the aspect menu reshapes the current area,
// and "use the image's size" takes the viewed image's size, then the first reference's.
func TestAspectMenuAndImageSize(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	c := &h.ui.ctl
	c.SetSize(512, 512)
	c.Aspect.SetSelected("16:9")
	if c.Width.Text != "688" || c.Height.Text != "384" || c.Aspect.Selected != "16:9" {
		t.Fatalf("16:9 from 512²: %s×%s (menu %q), want 688×384", c.Width.Text, c.Height.Text, c.Aspect.Selected)
	}
	c.Aspect.SetSelected("2:3")
	if c.Width.Text != "416" || c.Height.Text != "624" || c.Aspect.Selected != "2:3" {
		t.Fatalf("2:3: %s×%s (menu %q), want 416×624", c.Width.Text, c.Height.Text, c.Aspect.Selected)
	}
	c.UseImageSize()
	if c.Width.Text != "416" || h.ui.Status.Text == "" {
		t.Fatalf("no image: size %s×%s changed, status %q", c.Width.Text, c.Height.Text, h.ui.Status.Text)
	}
	c.SetSize(128, 64)
	if out := h.generate("a wide field"); out.Err != nil {
		t.Fatal(out.Err)
	}
	c.SetSize(512, 512)
	c.UseImageSize()
	if c.Width.Text != "128" || c.Height.Text != "64" {
		t.Fatalf("viewed image 128×64: size %s×%s", c.Width.Text, c.Height.Text)
	}
	if err := h.ui.refs.Add(writeTestPNG(t, t.TempDir(), "ref.png", 83, 69, nil)); err != nil {
		t.Fatal(err)
	}
	b := findTipButton(c.Box, form.UseSizeTip)
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
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	c := &h.ui.ctl
	for _, tc := range []struct {
		w, h int
		want string
	}{{1024, 1024, "1:1"}, {1024, 576, "16:9"}, {768, 1024, "3:4"}, {1200, 400, ""}, {832, 1248, "2:3"}} {
		c.Width.SetText(strconv.Itoa(tc.w))
		c.Height.SetText(strconv.Itoa(tc.h))
		if c.Aspect.Selected != tc.want {
			t.Errorf("%d×%d typed: the aspect menu shows %q, want %q", tc.w, tc.h, c.Aspect.Selected, tc.want)
		}
	}
	if c.Width.Text != "832" || c.Height.Text != "1248" {
		t.Errorf("showing the ratio changed the size to %s×%s", c.Width.Text, c.Height.Text)
	}
	c.Width.SetText("1200")
	c.Height.SetText("400")
	if p := c.Aspect.PlaceHolder; !strings.Contains(p, "3.00:1") {
		t.Errorf("1200×400: the aspect menu's placeholder %q does not give the ratio", p)
	}
}
