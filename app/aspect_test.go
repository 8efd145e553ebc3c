package app

import (
	"kleinbild/app/form"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestImageSizeFromTheViewerAndReferences: "use the image's size" takes the size of the
// image in the viewer after a run, then that of a reference added to the window's
// references. (The aspect menu, and the button on its own, are app/form's
// TestAspectMenuAndImageSize.)
func TestImageSizeFromTheViewerAndReferences(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	c := &h.ui.ctl
	b := findTipButton(c.Box, form.UseSizeTip)
	if b == nil {
		t.Fatal("no button to use the image's size")
	}
	c.SetSize(128, 64)
	if out := h.generate("a wide field"); out.Err != nil {
		t.Fatal(out.Err)
	}
	c.SetSize(512, 512)
	test.Tap(b)
	if c.Width.Text != "128" || c.Height.Text != "64" {
		t.Fatalf("viewed image 128×64: size %s×%s", c.Width.Text, c.Height.Text)
	}
	if err := h.ui.refs.Add(writeTestPNG(t, t.TempDir(), "ref.png", 83, 69, nil)); err != nil {
		t.Fatal(err)
	}
	test.Tap(b)
	if c.Width.Text != "80" || c.Height.Text != "64" {
		t.Fatalf("reference 83×69: size %s×%s, want 80×64", c.Width.Text, c.Height.Text)
	}
}
