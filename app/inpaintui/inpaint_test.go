package inpaintui

import (
	"image"
	"image/color"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/internal/uitest"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
)

// testPicture is a 64×48 picture with a gradient.
func testPicture() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.NRGBA{uint8(4 * x), uint8(5 * y), 90, 255})
		}
	}
	return img
}

// TestInpaintModeJob: the request Inpaint mode builds: the picture, the saved mask (an 8-bit
// grey PNG that reads back as painted), the strength; refused without paint; Extend sets
// outpainting (with the canvas shown) and refuses a canvas past the size limit. The
// engine's checks accept the requests.
func TestInpaintModeJob(t *testing.T) {
	test.NewTempApp(t)
	m := New(nil, Deps{}, "/pictures/in.png", testPicture())
	w := test.NewTempWindow(t, m.content())
	w.Resize(fyne.NewSize(900, 600))
	dir := filepath.Join(t.TempDir(), "masks")

	if _, err := m.request("a cat", 7, dir, false); err == nil || !strings.Contains(err.Error(), "paint") {
		t.Fatalf("an empty mask: error %v", err)
	}
	m.ed.Brush = 16
	uitest.PaintAt(m.ed, image.Pt(20, 20))
	m.strength.SetValue(0.6)
	if m.strengthLabel.Text != "0.60" {
		t.Errorf("strength label %q", m.strengthLabel.Text)
	}
	req, err := m.request("a cat", 7, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if req.Image != "/pictures/in.png" || req.Prompt != "a cat" || req.Seed != 7 || req.Strength != 0.6 || !req.Padding().IsZero() {
		t.Errorf("request %+v", req)
	}
	if err := engine.CheckRequest(req, true); err != nil {
		t.Errorf("the engine refuses the request: %v", err)
	}
	saved, err := imageio.Load(req.Mask)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := inpaint.Mask(saved, 64, 48)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range bin {
		if want := m.ed.Mask().Pix[i] >= 128; (v == 1) != want {
			t.Fatalf("saved mask pixel %d: %d, painted %d", i, v, m.ed.Mask().Pix[i])
		}
	}

	m.extendAspect(16, 9)
	if m.ed.Padding().IsZero() || !strings.Contains(m.padLabel.Text, "New canvas") {
		t.Fatalf("16:9: padding %+v, label %q", m.ed.Padding(), m.padLabel.Text)
	}
	if cw, ch := m.ed.Padding().Size(64, 48); cw*9 < ch*16-9*16 || pic(m).Bounds().Dx() != cw || pic(m).Bounds().Dy() != ch {
		t.Errorf("16:9 canvas %d×%d, preview %v", cw, ch, pic(m).Bounds())
	}
	req, err = m.request("a cat", 7, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if req.Padding() != m.ed.Padding() || req.Mask != "" {
		t.Errorf("outpainting request %+v", req)
	}
	if err := engine.CheckRequest(req, true); err != nil {
		t.Errorf("the engine refuses the outpainting request: %v", err)
	}
	// Repaint all: the whole picture from the strength, whatever is painted or extended.
	req, err = m.request("a cat", 7, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if req.Mode() != engine.ModeImageToImage || req.Mask != "" || !req.Padding().IsZero() || req.Strength != 0.6 {
		t.Errorf("repaint-all request %+v (mode %q)", req, req.Mode())
	}
	if err := engine.CheckRequest(req, true); err != nil {
		t.Errorf("the engine refuses the image-to-image request: %v", err)
	}
	m.extend(inpaint.Padding{Right: 5000})
	if !strings.Contains(m.padLabel.Text, "4096 px") || m.ed.Padding().Right == 5000 {
		t.Errorf("too large: label %q, padding %+v", m.padLabel.Text, m.ed.Padding())
	}
	m.extend(inpaint.Padding{Left: 16})
	if m.ed.Padding() != (inpaint.Padding{Left: 16}) || pic(m).Bounds().Dx() != 80 {
		t.Errorf("extend left: padding %+v, preview %v", m.ed.Padding(), pic(m).Bounds())
	}
	m.extend(inpaint.Padding{})
	if !m.ed.Padding().IsZero() || pic(m).Bounds().Dx() != 64 {
		t.Errorf("no extension: padding %+v, preview %v", m.ed.Padding(), pic(m).Bounds())
	}
	// A canvas the model cannot keep says what the result will be (issue 30 item 12).
	m.extend(inpaint.Padding{Left: 15})
	if !strings.Contains(m.padLabel.Text, "the canvas is 79×48") || !strings.Contains(m.padLabel.Text, "the result is 64×48") {
		t.Errorf("79×48 canvas: label %q", m.padLabel.Text)
	}
	if got := canvasText(4096, 4096, inpaint.Padding{}); !strings.Contains(got, "the result is 1024×1024") {
		t.Errorf("a 4096² picture: %q", got)
	}
}

func pic(m *Mode) image.Image { return m.ed.Preview() }

// TestInpaintPromptAndAmounts: the window's prompt starts as the form's; the amount fields
// extend the picture per side (checked like the Extend buttons), refuse what is not a
// whole number of pixels, and show what the Extend buttons set.
func TestInpaintPromptAndAmounts(t *testing.T) {
	test.NewTempApp(t)
	m := New(nil, Deps{FormPrompt: func() string { return "a cat on a roof" }}, "/pictures/in.png", testPicture())
	w := test.NewTempWindow(t, m.content())
	w.Resize(fyne.NewSize(1400, 700))
	if m.prompt.Text != "a cat on a roof" {
		t.Errorf("the window's prompt starts as %q", m.prompt.Text)
	}
	m.amounts[0].SetText("16")
	m.amounts[3].SetText(" 32 ")
	test.Tap(uitest.FindButton(w.Content(), "Set"))
	if m.ed.Padding() != (inpaint.Padding{Left: 16, Bottom: 32}) || pic(m).Bounds() != image.Rect(0, 0, 80, 80) {
		t.Fatalf("amounts 16 left, 32 bottom: padding %+v, canvas %v", m.ed.Padding(), pic(m).Bounds())
	}
	m.amounts[1].SetText("-16")
	m.applyAmounts()
	if !strings.Contains(m.padLabel.Text, "Top") || m.ed.Padding().Top != 0 {
		t.Errorf("a negative amount: label %q, padding %+v", m.padLabel.Text, m.ed.Padding())
	}
	m.amounts[1].SetText("")
	m.amounts[2].SetText("5000")
	m.applyAmounts()
	if !strings.Contains(m.padLabel.Text, "4096 px") || m.ed.Padding().Right != 0 {
		t.Errorf("too large: label %q, padding %+v", m.padLabel.Text, m.ed.Padding())
	}
	test.Tap(uitest.FindButton(w.Content(), "Right"))
	if m.amounts[2].Text != "16" || m.amounts[0].Text != "" || m.ed.Padding() != (inpaint.Padding{Right: 16}) {
		t.Errorf("after Extend Right: fields %q %q %q %q, padding %+v", m.amounts[0].Text, m.amounts[1].Text, m.amounts[2].Text, m.amounts[3].Text, m.ed.Padding())
	}
	// The outpainted result becomes the picture: the new size, no extension, a new mask.
	uitest.PaintAt(m.ed, image.Pt(5, 5))
	m.showResult("/pictures/out.png", image.NewNRGBA(image.Rect(0, 0, 80, 48)))
	if m.path != "/pictures/out.png" || !m.ed.Padding().IsZero() || m.amounts[2].Text != "" || m.ed.Mask().Rect != image.Rect(0, 0, 80, 48) || m.ed.Masked() || pic(m).Bounds().Dx() != 80 {
		t.Errorf("the result shown: path %s, padding %+v, mask %v (masked %v)", m.path, m.ed.Padding(), m.ed.Mask().Rect, m.ed.Masked())
	}
	m.closed = true
	m.loadResult("/pictures/out.png") // a closed window takes no result (and has no shell here)
}
