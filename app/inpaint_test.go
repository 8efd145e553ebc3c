package app

import (
	"image"
	"image/color"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/maskedit"
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

// masked counts the pixels of e's mask that would be repainted.
func masked(e *maskedit.Editor) int {
	n := 0
	for _, v := range e.Mask().Pix {
		if v >= 128 {
			n++
		}
	}
	return n
}

// paintAt paints a square of the brush's size centred at p (picture pixels) into e's mask.
func paintAt(e *maskedit.Editor, p image.Point) {
	r := int(e.Brush) / 2
	m := e.Mask()
	for y := p.Y - r; y <= p.Y+r; y++ {
		for x := p.X - r; x <= p.X+r; x++ {
			m.SetGray(x, y, color.Gray{Y: 255})
		}
	}
	e.Render()
}

// TestInpaintModeJob: the request Inpaint mode builds: the picture, the saved mask (an 8-bit
// grey PNG that reads back as painted), the strength; refused without paint; Extend sets
// outpainting (with the canvas shown) and refuses a canvas past the size limit. The
// engine's checks accept the requests.
func TestInpaintModeJob(t *testing.T) {
	test.NewTempApp(t)
	m := newInpaintMode(nil, inpaintDeps{}, "/pictures/in.png", testPicture())
	w := test.NewTempWindow(t, m.content())
	w.Resize(fyne.NewSize(900, 600))
	dir := filepath.Join(t.TempDir(), "masks")

	if _, err := m.request("a cat", 7, dir, false); err == nil || !strings.Contains(err.Error(), "paint") {
		t.Fatalf("an empty mask: error %v", err)
	}
	m.ed.Brush = 16
	paintAt(m.ed, image.Pt(20, 20))
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

func pic(m *inpaintMode) image.Image { return m.ed.Preview() }

// TestInpaintModeEndToEnd: with the real tiny model, a generated image shown in the viewer
// enters Inpaint mode through its button, a stroke is painted, and Generate repaints it:
// the result goes to the gallery at the picture's size, with the mode, the strength and the
// saved mask's hash in its metadata.
func TestInpaintModeEndToEnd(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data, tinyModel(t), nil)
	u := h.ui
	u.ctl.setSize(64, 64)
	if out := h.generate("a tiny test image"); out.err != nil {
		t.Fatal(out.err)
	}
	h.settle()
	if !u.view.shownOK {
		t.Fatal("the generated image is not shown")
	}
	m := u.view.openInpaint()
	if m == nil {
		t.Fatalf("Inpaint mode did not open (banner %q)", u.ErrorText())
	}
	m.win.Resize(fyne.NewSize(600, 500))
	// The window's own prompt starts as the form's and is the one its runs use.
	if m.prompt.Text != "a tiny test image" {
		t.Errorf("the Inpaint prompt starts as %q, want the form's", m.prompt.Text)
	}
	m.prompt.SetText("a red door")
	m.ed.Brush = 24
	m.ed.Tapped(&fyne.PointEvent{Position: fyne.NewPos(m.ed.Size().Width/2, m.ed.Size().Height/2)})
	if !m.ed.Masked() {
		t.Fatalf("the tap painted nothing (editor %v)", m.ed.Size())
	}
	m.strength.SetValue(1)
	u.ctl.prompt.SetText("") // the window's prompt is enough: an empty form takes it
	// The form's switched-on adapters apply to inpainting too (they were once left out).
	h.addAdapter(goldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	test.Tap(m.genBtn)
	r := u.run.cur
	if r == nil {
		t.Fatalf("Generate did not start (banner %q)", u.ErrorText())
	}
	if r.job.Picture != image.Pt(64, 64) { // the estimate and the progress price it by its picture
		t.Errorf("the inpainting job's picture is %v, want 64×64", r.job.Picture)
	}
	var out runOutcome
	h.waitFor("the inpainting run", 60*time.Second, func() bool {
		select {
		case out = <-r.outcome:
			return true
		default:
			return false
		}
	})
	if out.err != nil {
		t.Fatal(out.err)
	}
	if u.Gallery.Len() != 2 {
		t.Fatalf("gallery has %d images, want 2", u.Gallery.Len())
	}
	meta := out.entry.Meta
	if meta.Prompt != "a red door" || u.ctl.prompt.Text != "a red door" {
		t.Errorf("inpainting ran with the prompt %q (the form's is now %q), want the window's", meta.Prompt, u.ctl.prompt.Text)
	}
	// The window shows the result, with the mask kept, to refine it further.
	painted := append([]uint8(nil), m.ed.Mask().Pix...)
	h.waitFor("the result in the Inpaint window", 10*time.Second, func() bool { return m.path == u.Gallery.Path(out.entry) })
	if m.ed.Width() != 64 || !slices.Equal(m.ed.Mask().Pix, painted) || !strings.Contains(m.win.Title(), out.entry.File) {
		t.Errorf("after the run the window shows %v (title %q), mask kept %v", image.Pt(m.ed.Width(), m.ed.Height()), m.win.Title(), slices.Equal(m.ed.Mask().Pix, painted))
	}
	if len(meta.Adapters) != 1 || meta.Adapters[0].File != "lora_kohya_r2_a1.safetensors" {
		t.Errorf("inpainting ran with adapters %+v, want the form's one", meta.Adapters)
	}
	if meta.Mode() != engine.ModeInpaint || meta.Strength != 1 || meta.Mask == "" || meta.Width != 64 || meta.Height != 64 {
		t.Fatalf("metadata %+v", meta)
	}
	// Lineage: the result is made from the source image, which is used in the result.
	src, _ := u.Gallery.At(1)
	if ps := u.Gallery.Parents(out.entry); len(ps) != 1 || ps[0].File != src.File {
		t.Errorf("parents of the result %v, want %s", ps, src.File)
	}
	if cs := u.Gallery.Children(src); len(cs) != 1 || cs[0].File != out.entry.File {
		t.Errorf("children of the source %v, want %s", cs, out.entry.File)
	}
	// Reuse settings on the result reopens Inpaint mode on the source with the mask and
	// the strength.
	again, ok := u.reuseInpaint(meta)
	if !ok || again == nil {
		t.Fatalf("reuse: %v %v (banner %q)", again, ok, u.ErrorText())
	}
	if again.path != u.Gallery.Path(src) || again.strength.Value != 1 || masked(again.ed) != masked(m.ed) {
		t.Errorf("reused: path %s, strength %v, %d masked pixels (want %d)", again.path, again.strength.Value, masked(again.ed), masked(m.ed))
	}
	wins := len(fyne.CurrentApp().Driver().AllWindows())
	test.Tap(u.view.reuseBtn)
	if n := len(fyne.CurrentApp().Driver().AllWindows()); n != wins+1 {
		t.Errorf("Reuse settings on an inpainted image: %d windows, want %d", n, wins+1)
	}
	if sum, err := imageio.SHA256File(meta.Mask); err != nil || sum != meta.Hashes[meta.Mask] || !strings.HasPrefix(meta.Mask, filepath.Join(data, "masks")) {
		t.Errorf("mask %s (%s): %s %v", meta.Mask, meta.Hashes[meta.Mask], sum, err)
	}
}

// TestInpaintPromptAndAmounts: the window's prompt starts as the form's; the amount fields
// extend the picture per side (checked like the Extend buttons), refuse what is not a
// whole number of pixels, and show what the Extend buttons set.
func TestInpaintPromptAndAmounts(t *testing.T) {
	test.NewTempApp(t)
	m := newInpaintMode(nil, inpaintDeps{formPrompt: func() string { return "a cat on a roof" }}, "/pictures/in.png", testPicture())
	w := test.NewTempWindow(t, m.content())
	w.Resize(fyne.NewSize(1400, 700))
	if m.prompt.Text != "a cat on a roof" {
		t.Errorf("the window's prompt starts as %q", m.prompt.Text)
	}
	m.amounts[0].SetText("16")
	m.amounts[3].SetText(" 32 ")
	test.Tap(findButton(w.Content(), "Set"))
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
	test.Tap(findButton(w.Content(), "Right"))
	if m.amounts[2].Text != "16" || m.amounts[0].Text != "" || m.ed.Padding() != (inpaint.Padding{Right: 16}) {
		t.Errorf("after Extend Right: fields %q %q %q %q, padding %+v", m.amounts[0].Text, m.amounts[1].Text, m.amounts[2].Text, m.amounts[3].Text, m.ed.Padding())
	}
	// The outpainted result becomes the picture: the new size, no extension, a new mask.
	paintAt(m.ed, image.Pt(5, 5))
	m.showResult("/pictures/out.png", image.NewNRGBA(image.Rect(0, 0, 80, 48)))
	if m.path != "/pictures/out.png" || !m.ed.Padding().IsZero() || m.amounts[2].Text != "" || m.ed.Mask().Rect != image.Rect(0, 0, 80, 48) || m.ed.Masked() || pic(m).Bounds().Dx() != 80 {
		t.Errorf("the result shown: path %s, padding %+v, mask %v (masked %v)", m.path, m.ed.Padding(), m.ed.Mask().Rect, m.ed.Masked())
	}
	m.closed = true
	m.loadResult("/pictures/out.png") // a closed window takes no result (and has no shell here)
}
