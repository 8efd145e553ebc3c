package app

import (
	"image"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/maskedit"
	"kleinbild/app/run"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

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

// TestInpaintModeEndToEnd: with the real tiny model, a generated image shown in the viewer
// enters Inpaint mode through its button, a stroke is painted, and Generate repaints it:
// the result goes to the gallery at the picture's size, with the mode, the strength and the
// saved mask's hash in its metadata.
func TestInpaintModeEndToEnd(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data, tinyModel(t), nil)
	u := h.ui
	u.ctl.SetSize(64, 64)
	if out := h.generate("a tiny test image"); out.Err != nil {
		t.Fatal(out.Err)
	}
	h.settle()
	if !u.view.ShownOK {
		t.Fatal("the generated image is not shown")
	}
	m := u.view.OpenInpaint()
	if m == nil {
		t.Fatalf("Inpaint mode did not open (banner %q)", u.ErrorText())
	}
	m.Parts().Win.Resize(fyne.NewSize(600, 500))
	// The window's own prompt starts as the form's and is the one its runs use.
	if m.Parts().Prompt.Text != "a tiny test image" {
		t.Errorf("the Inpaint prompt starts as %q, want the form's", m.Parts().Prompt.Text)
	}
	m.Parts().Prompt.SetText("a red door")
	m.Parts().Editor.Brush = 24
	m.Parts().Editor.Tapped(&fyne.PointEvent{Position: fyne.NewPos(m.Parts().Editor.Size().Width/2, m.Parts().Editor.Size().Height/2)})
	if !m.Parts().Editor.Masked() {
		t.Fatalf("the tap painted nothing (editor %v)", m.Parts().Editor.Size())
	}
	m.Parts().Strength.SetValue(1)
	u.ctl.Prompt.SetText("") // the window's prompt is enough: an empty form takes it
	// The form's switched-on adapters apply to inpainting too (they were once left out).
	h.addAdapter(goldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	test.Tap(m.Parts().Generate)
	r := u.run.Current()
	if r == nil {
		t.Fatalf("Generate did not start (banner %q)", u.ErrorText())
	}
	if r.Job().Picture != image.Pt(64, 64) { // the estimate and the progress price it by its picture
		t.Errorf("the inpainting job's picture is %v, want 64×64", r.Job().Picture)
	}
	var out run.Outcome
	h.waitFor("the inpainting run", 60*time.Second, func() bool {
		select {
		case out = <-r.Outcome():
			return true
		default:
			return false
		}
	})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if u.Gallery.Len() != 2 {
		t.Fatalf("gallery has %d images, want 2", u.Gallery.Len())
	}
	meta := out.Entry.Meta
	if meta.Prompt != "a red door" || u.ctl.Prompt.Text != "a red door" {
		t.Errorf("inpainting ran with the prompt %q (the form's is now %q), want the window's", meta.Prompt, u.ctl.Prompt.Text)
	}
	// The window shows the result, with the mask kept, to refine it further.
	painted := append([]uint8(nil), m.Parts().Editor.Mask().Pix...)
	h.waitFor("the result in the Inpaint window", 10*time.Second, func() bool { return m.Parts().Path == u.Gallery.Path(out.Entry) })
	if m.Parts().Editor.Width() != 64 || !slices.Equal(m.Parts().Editor.Mask().Pix, painted) || !strings.Contains(m.Parts().Win.Title(), out.Entry.File) {
		t.Errorf("after the run the window shows %v (title %q), mask kept %v", image.Pt(m.Parts().Editor.Width(), m.Parts().Editor.Height()), m.Parts().Win.Title(), slices.Equal(m.Parts().Editor.Mask().Pix, painted))
	}
	if len(meta.Adapters) != 1 || meta.Adapters[0].File != "lora_kohya_r2_a1.safetensors" {
		t.Errorf("inpainting ran with adapters %+v, want the form's one", meta.Adapters)
	}
	if meta.Mode() != engine.ModeInpaint || meta.Strength != 1 || meta.Mask == "" || meta.Width != 64 || meta.Height != 64 {
		t.Fatalf("metadata %+v", meta)
	}
	// Lineage: the result is made from the source image, which is used in the result.
	src, _ := u.Gallery.At(1)
	if ps := u.Gallery.Parents(out.Entry); len(ps) != 1 || ps[0].File != src.File {
		t.Errorf("parents of the result %v, want %s", ps, src.File)
	}
	if cs := u.Gallery.Children(src); len(cs) != 1 || cs[0].File != out.Entry.File {
		t.Errorf("children of the source %v, want %s", cs, out.Entry.File)
	}
	// Reuse settings on the result reopens Inpaint mode on the source with the mask and
	// the strength.
	again, ok := u.reuseInpaint(meta)
	if !ok || again == nil {
		t.Fatalf("reuse: %v %v (banner %q)", again, ok, u.ErrorText())
	}
	if again.Parts().Path != u.Gallery.Path(src) || again.Parts().Strength.Value != 1 || masked(again.Parts().Editor) != masked(m.Parts().Editor) {
		t.Errorf("reused: path %s, strength %v, %d masked pixels (want %d)", again.Parts().Path, again.Parts().Strength.Value, masked(again.Parts().Editor), masked(m.Parts().Editor))
	}
	wins := len(fyne.CurrentApp().Driver().AllWindows())
	test.Tap(u.view.ReuseBtn)
	if n := len(fyne.CurrentApp().Driver().AllWindows()); n != wins+1 {
		t.Errorf("Reuse settings on an inpainted image: %d windows, want %d", n, wins+1)
	}
	if sum, err := imageio.SHA256File(meta.Mask); err != nil || sum != meta.Hashes[meta.Mask] || !strings.HasPrefix(meta.Mask, filepath.Join(data, "masks")) {
		t.Errorf("mask %s (%s): %s %v", meta.Mask, meta.Hashes[meta.Mask], sum, err)
	}
}
