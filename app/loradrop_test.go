package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"

	"kleinbild/app/shell"
	"kleinbild/weights/golden"
)

// Issue 28 item 2: a LoRA or LoKr file dropped on the window becomes an adapter; the model
// settings, which take weight files, no longer claim it (the banner said
// "Style_a.safetensors is not a FLUX.2 transformer…"). A transformer file still goes to the
// model settings.
func TestDropRoutesAdaptersBeforeModel(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	u := h.ui
	dir := t.TempDir()
	lokr := writeLoRA(t, dir, "style_a.safetensors", nil, "")
	h.wait("the adapter drop", u.routeDrop([]fyne.URI{storage.NewFileURI(lokr), storage.NewFileURI(goldenLoRA(t, "lokr_lycoris_f4.safetensors"))}))
	if u.model.Form != nil {
		t.Fatal("the model settings claimed an adapter drop")
	}
	if n := len(u.Settings.Adapters); n != 2 {
		t.Fatalf("%d adapters after dropping two; banner %q", n, u.ErrorText())
	}
	if msg := u.ErrorText(); strings.Contains(msg, "transformer") {
		t.Errorf("banner %q", msg)
	}
	tr := golden.Path(t, "model", "tiny-flux2-klein", "transformer", "diffusion_pytorch_model.safetensors")
	h.wait("the transformer drop", u.routeDrop([]fyne.URI{storage.NewFileURI(tr)}))
	if u.model.Form == nil {
		t.Error("a transformer file did not go to the model settings")
	}
	h.waitFor("the form", 10*time.Second, func() bool { return u.model.Form.Path.Text == tr })
	if len(u.Settings.Adapters) != 2 {
		t.Errorf("the transformer was added as an adapter")
	}
}

// The banner starts a sentence with a capital, but never changes a file name's case.
func TestSentenceKeepsFileNames(t *testing.T) {
	for in, want := range map[string]string{
		"style_a.safetensors is not a FLUX.2 transformer": "style_a.safetensors is not a FLUX.2 transformer",
		"lora.safetensors: bad":                           "lora.safetensors: bad",
		"open the model: no such file":                    "Open the model: no such file",
		"lora: no tensors":                                "Lora: no tensors",
		"":                                                "",
	} {
		if got := shell.Sentence(in); got != want {
			t.Errorf("shell.Sentence(%q) = %q, want %q", in, got, want)
		}
	}
}
