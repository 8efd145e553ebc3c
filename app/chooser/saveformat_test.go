package chooser

import (
	"bytes"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/app/internal/uitest"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/internal/testfix/metapng"
)

// Issue 22 item 12: Save as… offers PNG and JPEG; picking JPEG names the copy .jpg and
// writes a JPEG carrying the settings as text; WebP is refused with the reason.
func TestSaveAsJPEG(t *testing.T) {
	_, pictures := uitest.FakeHome(t)
	h := newHarness(t, t.TempDir())
	src := metapng.Write(t, t.TempDir(), "img-00.png", 32, 24, &imageio.Metadata{Settings: schema.Settings{Prompt: "a red castle", Width: 32, Height: 24, Steps: 2}})
	var saved []string
	c := OpenSave(h.sh, "Save a copy", src, "img-00.png", startIn(pictures), func(p string) { saved = append(saved, p) })
	h.loaded(c)
	sel := uitest.FindSelect(h.win.Canvas().Overlays().Top())
	if sel == nil || strings.Join(sel.Options, ",") != "PNG,JPEG" || sel.Selected != "PNG" {
		t.Fatalf("format picker %v", sel)
	}
	sel.SetSelected("JPEG")
	if c.name.Text != "img-00.jpg" {
		t.Fatalf("after picking JPEG the name is %q", c.name.Text)
	}
	c.name.SetText("castle.png")
	if sel.Selected != "PNG" {
		t.Errorf("typing .png left the picker at %s", sel.Selected)
	}
	c.name.SetText("castle.jpeg")
	test.Tap(c.ok)
	h.waitFor("the copy", func() bool { return len(saved) == 1 })
	raw, err := os.ReadFile(filepath.Join(pictures, "castle.jpeg"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the copy is not a JPEG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 32 || b.Dy() != 24 {
		t.Errorf("JPEG is %v, want 32×24", b)
	}
	if !bytes.Contains(raw, []byte("a red castle")) {
		t.Error("the JPEG does not carry the prompt")
	}
}
