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

func masked(e *maskEditor) int {
	n := 0
	for _, v := range e.mask.Pix {
		if v >= 128 {
			n++
		}
	}
	return n
}

// editorWindow is a mask editor on the 64×48 test picture in a 128×96 window: 2 widget
// units a picture pixel.
func editorWindow(t *testing.T) (*maskEditor, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	e := newMaskEditor(testPicture())
	w := test.NewTempWindow(t, e)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(128, 96))
	e.Resize(fyne.NewSize(128, 96))
	return e, w
}

// TestMaskEditorStrokes: strokes through the test driver paint the mask where they go (the
// picture fitted 2× in the widget), the eraser removes paint, undo and redo step through
// the strokes, invert and clear work on the whole mask, and the overlay shows the mask.
func TestMaskEditorStrokes(t *testing.T) {
	e, w := editorWindow(t)
	e.brush, e.hardness = 8, 1

	// A dab at widget (20, 20) is picture pixel (10, 10).
	test.Drag(w.Canvas(), fyne.NewPos(20, 20), 10, 0)
	if e.mask.GrayAt(10, 10).Y != 255 || e.mask.GrayAt(40, 40).Y != 0 {
		t.Fatalf("dab: mask at (10,10) %d, at (40,40) %d", e.mask.GrayAt(10, 10).Y, e.mask.GrayAt(40, 40).Y)
	}
	one := masked(e)
	// The overlay tints the painted pixel red.
	if pic := e.view.Image.(*image.NRGBA); pic.NRGBAAt(10, 10).R <= testPicture().NRGBAAt(10, 10).R {
		t.Errorf("overlay at a painted pixel: %v", pic.NRGBAAt(10, 10))
	}

	// A stroke from (10,30) to (50,30) in picture pixels paints a line between.
	e.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(20, 60)}})
	e.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 60)}})
	e.DragEnd()
	for _, x := range []int{10, 30, 50} {
		if e.mask.GrayAt(x, 30).Y != 255 {
			t.Errorf("stroke: mask at (%d,30) is %d", x, e.mask.GrayAt(x, 30).Y)
		}
	}
	two := masked(e)
	if two <= one {
		t.Fatalf("the stroke painted nothing (%d then %d pixels)", one, two)
	}

	e.erase = true
	test.Drag(w.Canvas(), fyne.NewPos(60, 60), 1, 0)
	if e.mask.GrayAt(30, 30).Y != 0 {
		t.Errorf("eraser left %d at (30,30)", e.mask.GrayAt(30, 30).Y)
	}
	e.erase = false

	e.Undo() // the eraser
	if masked(e) != two {
		t.Errorf("undo of the eraser: %d pixels, want %d", masked(e), two)
	}
	e.Undo() // the stroke
	if masked(e) != one {
		t.Errorf("undo of the stroke: %d pixels, want %d", masked(e), one)
	}
	e.Redo()
	if masked(e) != two {
		t.Errorf("redo: %d pixels, want %d", masked(e), two)
	}
	e.Invert()
	if masked(e) != 64*48-two {
		t.Errorf("invert: %d pixels, want %d", masked(e), 64*48-two)
	}
	e.Clear()
	if e.Masked() {
		t.Error("clear left paint")
	}
	e.Undo()
	if masked(e) != 64*48-two {
		t.Errorf("undo of clear: %d pixels", masked(e))
	}
}

// TestMaskEditorZoomPan: scrolling zooms about the pointer, painting keeps working on the
// zoomed view (a tap paints the picture pixel under it), pan mode moves the view instead of
// painting, and zoom 1 shows the whole picture again.
func TestMaskEditorZoomPan(t *testing.T) {
	e, _ := editorWindow(t)
	e.brush, e.hardness = 1, 1

	// Zoom 4× about widget (32, 24) = picture (16, 12): that point stays under the pointer.
	e.SetZoom(4, 16, 12)
	if v := e.view.Image.Bounds(); v.Dx() != 16 || v.Dy() != 12 {
		t.Fatalf("visible part at zoom 4: %v", v)
	}
	if x, y := e.toPictureF(fyne.NewPos(32, 24)); x < 15 || x > 17 || y < 11 || y > 13 {
		t.Errorf("zoom moved the point under the pointer to (%.1f, %.1f)", x, y)
	}
	p := e.toPicture(fyne.NewPos(64, 48))
	e.Tapped(&fyne.PointEvent{Position: fyne.NewPos(64, 48)})
	if e.mask.GrayAt(p.X, p.Y).Y != 255 || masked(e) > 4 {
		t.Errorf("tap at zoom 4 painted %d pixels, (%d,%d) = %d", masked(e), p.X, p.Y, e.mask.GrayAt(p.X, p.Y).Y)
	}
	before := e.visible()
	e.pan = true
	n := masked(e)
	e.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(64, 48)}, Dragged: fyne.Delta{DX: -32}})
	e.DragEnd()
	if after := e.visible(); after.Min.X != before.Min.X+4 || masked(e) != n {
		t.Errorf("pan by 32 px at 8 px a pixel: view %v -> %v, %d masked (was %d)", before, after, masked(e), n)
	}
	e.pan = false
	e.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(10, 10)}, Scrolled: fyne.Delta{DY: -1000}})
	if e.zoom != 1 || e.view.Image.Bounds() != image.Rect(0, 0, 64, 48) {
		t.Errorf("zoomed out: zoom %v, visible %v", e.zoom, e.view.Image.Bounds())
	}
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
	m.ed.brush = 16
	m.ed.dab(image.Pt(20, 20))
	m.strength.SetValue(0.6)
	if m.strengthLabel.Text != "0.60" {
		t.Errorf("strength label %q", m.strengthLabel.Text)
	}
	req, err := m.request("a cat", 7, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if req.Image != "/pictures/in.png" || req.Prompt != "a cat" || req.Seed != 7 || req.Strength != 0.6 || !req.Outpaint.IsZero() {
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
		if want := m.ed.mask.Pix[i] >= 128; (v == 1) != want {
			t.Fatalf("saved mask pixel %d: %d, painted %d", i, v, m.ed.mask.Pix[i])
		}
	}

	m.extendAspect(16, 9)
	if m.ed.pad.IsZero() || !strings.Contains(m.padLabel.Text, "New canvas") {
		t.Fatalf("16:9: padding %+v, label %q", m.ed.pad, m.padLabel.Text)
	}
	if cw, ch := m.ed.pad.Size(64, 48); cw*9 < ch*16-9*16 || pic(m).Bounds().Dx() != cw || pic(m).Bounds().Dy() != ch {
		t.Errorf("16:9 canvas %d×%d, preview %v", cw, ch, pic(m).Bounds())
	}
	req, err = m.request("a cat", 7, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if req.Outpaint != m.ed.pad || req.Mask != "" {
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
	if req.Mode() != engine.ModeImageToImage || req.Mask != "" || !req.Outpaint.IsZero() || req.Strength != 0.6 {
		t.Errorf("repaint-all request %+v (mode %q)", req, req.Mode())
	}
	if err := engine.CheckRequest(req, true); err != nil {
		t.Errorf("the engine refuses the image-to-image request: %v", err)
	}
	m.extend(inpaint.Padding{Right: 5000})
	if !strings.Contains(m.padLabel.Text, "4096 px") || m.ed.pad.Right == 5000 {
		t.Errorf("too large: label %q, padding %+v", m.padLabel.Text, m.ed.pad)
	}
	m.extend(inpaint.Padding{Left: 16})
	if m.ed.pad != (inpaint.Padding{Left: 16}) || pic(m).Bounds().Dx() != 80 {
		t.Errorf("extend left: padding %+v, preview %v", m.ed.pad, pic(m).Bounds())
	}
	m.extend(inpaint.Padding{})
	if !m.ed.pad.IsZero() || pic(m).Bounds().Dx() != 64 {
		t.Errorf("no extension: padding %+v, preview %v", m.ed.pad, pic(m).Bounds())
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

func pic(m *inpaintMode) image.Image { return m.ed.view.Image }

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
		t.Fatalf("Inpaint mode did not open (banner %q)", u.errorText())
	}
	m.win.Resize(fyne.NewSize(600, 500))
	// The window's own prompt starts as the form's and is the one its runs use.
	if m.prompt.Text != "a tiny test image" {
		t.Errorf("the Inpaint prompt starts as %q, want the form's", m.prompt.Text)
	}
	m.prompt.SetText("a red door")
	m.ed.brush = 24
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
		t.Fatalf("Generate did not start (banner %q)", u.errorText())
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
	if u.gallery.Len() != 2 {
		t.Fatalf("gallery has %d images, want 2", u.gallery.Len())
	}
	meta := out.entry.Meta
	if meta.Prompt != "a red door" || u.ctl.prompt.Text != "a red door" {
		t.Errorf("inpainting ran with the prompt %q (the form's is now %q), want the window's", meta.Prompt, u.ctl.prompt.Text)
	}
	// The window shows the result, with the mask kept, to refine it further.
	painted := append([]uint8(nil), m.ed.mask.Pix...)
	h.waitFor("the result in the Inpaint window", 10*time.Second, func() bool { return m.path == u.gallery.Path(out.entry) })
	if m.ed.src.Bounds().Dx() != 64 || !slices.Equal(m.ed.mask.Pix, painted) || !strings.Contains(m.win.Title(), out.entry.File) {
		t.Errorf("after the run the window shows %v (title %q), mask kept %v", m.ed.src.Bounds(), m.win.Title(), slices.Equal(m.ed.mask.Pix, painted))
	}
	if len(meta.Adapters) != 1 || meta.Adapters[0].File != "lora_kohya_r2_a1.safetensors" {
		t.Errorf("inpainting ran with adapters %+v, want the form's one", meta.Adapters)
	}
	in := meta.Inpaint
	if in == nil || in.Mode != engine.ModeInpaint || in.Strength != 1 || in.Mask == nil || meta.Width != 64 || meta.Height != 64 {
		t.Fatalf("metadata %+v, inpaint %+v", meta, in)
	}
	// Lineage: the result is made from the source image, which is used in the result.
	src, _ := u.gallery.At(1)
	if ps := u.gallery.Parents(out.entry); len(ps) != 1 || ps[0].File != src.File {
		t.Errorf("parents of the result %v, want %s", ps, src.File)
	}
	if cs := u.gallery.Children(src); len(cs) != 1 || cs[0].File != out.entry.File {
		t.Errorf("children of the source %v, want %s", cs, out.entry.File)
	}
	// Reuse settings on the result reopens Inpaint mode on the source with the mask and
	// the strength.
	again, ok := u.reuseInpaint(meta)
	if !ok || again == nil {
		t.Fatalf("reuse: %v %v (banner %q)", again, ok, u.errorText())
	}
	if again.path != u.gallery.Path(src) || again.strength.Value != 1 || masked(again.ed) != masked(m.ed) {
		t.Errorf("reused: path %s, strength %v, %d masked pixels (want %d)", again.path, again.strength.Value, masked(again.ed), masked(m.ed))
	}
	wins := len(fyne.CurrentApp().Driver().AllWindows())
	test.Tap(u.view.reuseBtn)
	if n := len(fyne.CurrentApp().Driver().AllWindows()); n != wins+1 {
		t.Errorf("Reuse settings on an inpainted image: %d windows, want %d", n, wins+1)
	}
	if sum, err := imageio.SHA256File(in.Mask.Path); err != nil || sum != in.Mask.SHA256 || !strings.HasPrefix(in.Mask.Path, filepath.Join(data, "masks")) {
		t.Errorf("mask %+v: %s %v", in.Mask, sum, err)
	}
}

// TestMaskRectangleTool: with the rectangle tool a drag fills the rectangle from where the
// pointer was pressed to where it is (the preview follows the pointer without leaving
// earlier corners painted), the eraser clears one, each drag is one Undo step, and a tap
// paints nothing.
func TestMaskRectangleTool(t *testing.T) {
	e, _ := editorWindow(t)
	e.rect = true
	drag := func(from fyne.Position, to ...fyne.Position) {
		prev := from
		for _, p := range to { // as the driver reports it: the pointer and its move
			e.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: p}, Dragged: fyne.NewDelta(p.X-prev.X, p.Y-prev.Y)})
			prev = p
		}
		e.DragEnd()
	}
	drag(fyne.NewPos(20, 20), fyne.NewPos(100, 90), fyne.NewPos(60, 40)) // picture (10,10)..(30,20)
	if n := masked(e); n != 21*11 {
		t.Fatalf("rectangle (10,10)-(30,20): %d masked pixels, want %d", n, 21*11)
	}
	if e.mask.GrayAt(10, 10).Y != 255 || e.mask.GrayAt(30, 20).Y != 255 || e.mask.GrayAt(31, 20).Y != 0 || e.mask.GrayAt(40, 40).Y != 0 {
		t.Error("the rectangle is not where the drag went")
	}
	e.erase = true
	drag(fyne.NewPos(40, 40), fyne.NewPos(30, 30)) // picture (15,15)..(20,20), backwards
	if n := masked(e); n != 21*11-6*6 || e.mask.GrayAt(17, 17).Y != 0 {
		t.Errorf("erased rectangle: %d masked pixels, want %d", masked(e), 21*11-6*6)
	}
	e.erase = false
	e.Tapped(&fyne.PointEvent{Position: fyne.NewPos(120, 90)})
	e.Undo()
	if n := masked(e); n != 21*11 {
		t.Errorf("undo of the erased rectangle: %d masked pixels", n)
	}
	e.Undo()
	if e.Masked() {
		t.Error("undo of the rectangle left paint")
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
	if m.ed.pad != (inpaint.Padding{Left: 16, Bottom: 32}) || pic(m).Bounds() != image.Rect(0, 0, 80, 80) {
		t.Fatalf("amounts 16 left, 32 bottom: padding %+v, canvas %v", m.ed.pad, pic(m).Bounds())
	}
	m.amounts[1].SetText("-16")
	m.applyAmounts()
	if !strings.Contains(m.padLabel.Text, "Top") || m.ed.pad.Top != 0 {
		t.Errorf("a negative amount: label %q, padding %+v", m.padLabel.Text, m.ed.pad)
	}
	m.amounts[1].SetText("")
	m.amounts[2].SetText("5000")
	m.applyAmounts()
	if !strings.Contains(m.padLabel.Text, "4096 px") || m.ed.pad.Right != 0 {
		t.Errorf("too large: label %q, padding %+v", m.padLabel.Text, m.ed.pad)
	}
	test.Tap(findButton(w.Content(), "Right"))
	if m.amounts[2].Text != "16" || m.amounts[0].Text != "" || m.ed.pad != (inpaint.Padding{Right: 16}) {
		t.Errorf("after Extend Right: fields %q %q %q %q, padding %+v", m.amounts[0].Text, m.amounts[1].Text, m.amounts[2].Text, m.amounts[3].Text, m.ed.pad)
	}
	// The outpainted result becomes the picture: the new size, no extension, a new mask.
	m.ed.dab(image.Pt(5, 5))
	m.showResult("/pictures/out.png", image.NewNRGBA(image.Rect(0, 0, 80, 48)))
	if m.path != "/pictures/out.png" || !m.ed.pad.IsZero() || m.amounts[2].Text != "" || m.ed.mask.Rect != image.Rect(0, 0, 80, 48) || m.ed.Masked() || pic(m).Bounds().Dx() != 80 {
		t.Errorf("the result shown: path %s, padding %+v, mask %v (masked %v)", m.path, m.ed.pad, m.ed.mask.Rect, m.ed.Masked())
	}
	m.closed = true
	m.loadResult("/pictures/out.png") // a closed window takes no result (and has no shell here)
}
