package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"kleinbild/weights/golden"
)

// Issue 36, item 21: a folder without any model file (only images) is said to hold no
// model files, not called an incomplete "· base" model; the header says it is unusable.
func TestModelFolderWithoutModelFiles(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	pics := filepath.Join(t.TempDir(), "holiday")
	if err := os.MkdirAll(pics, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.png", "b.png"} {
		if err := os.WriteFile(filepath.Join(pics, n), []byte("\x89PNG\r\n\x1a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := openForm(t, h)
	f.Path.SetText(pics)
	st := waitChecked(h, f)
	if f.OK || !strings.Contains(st, "holiday holds no model files") || strings.Contains(st, "incomplete") || strings.Contains(st, "base") {
		t.Errorf("folder of images: ok %v, report %q", f.OK, st)
	}
	h.tapDialogButton("Close")
	if err := h.ui.SetModelDir(pics, false); err == nil || h.ui.model.Button.Text != "Model unusable" {
		t.Errorf("folder of images as the model: %v, header %q", err, h.ui.model.Button.Text)
	}
}

// Issue 36, item 21: a LoRA or LoKr file chosen as the model, or as its transformer, is
// named an adapter to add under Adapters, not refused with a tensor-name error.
func TestModelAdapterChosenAsModel(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	f := openForm(t, h)
	for _, c := range []struct{ file, kind string }{
		{"lora_kohya_r2_a1.safetensors", "LoRA"}, {"lokr_lycoris_f4.safetensors", "LoKr"},
	} {
		p := golden.Path(t, "lora", "loras", c.file)
		f.Path.SetText(p)
		st := waitChecked(h, f)
		if f.OK || !strings.Contains(st, c.kind+" adapter") || !strings.Contains(st, "under Adapters") || strings.Contains(st, "tensor names") {
			t.Errorf("%s as the model: ok %v, report %q", c.file, f.OK, st)
		}
	}
	f.Path.SetText(tinyModel(t))
	f.Parts["transformer"].SetText(golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors"))
	if st := waitChecked(h, f); f.OK || !strings.Contains(st, "LoRA adapter") {
		t.Errorf("LoRA as the transformer: ok %v, report %q", f.OK, st)
	}
}

// Issue 36, item 21: the model dialog's texts speak to end users, never of the developers'
// tiny test model.
func TestModelDialogSpeaksToUsers(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	f := openForm(t, h)
	var text string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.RichText:
			text += w.String() + "\n"
		case *widget.Label:
			text += w.Text + "\n"
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case *container.Scroll:
			walk(w.Content)
		}
	}
	walk(f.Content)
	if !strings.Contains(text, "transformer file") {
		t.Fatalf("the walk missed the dialog's help: %s", text)
	}
	for _, bad := range []string{"tiny", "test model", "golden"} {
		if strings.Contains(strings.ToLower(text), bad) {
			t.Errorf("model dialog mentions %q: %s", bad, text)
		}
	}
}
