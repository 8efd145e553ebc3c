package inputs

import (
	"testing"

	"kleinbild/weights/golden"
)

// isAdapterFile tells an adapter from a model's transformer by the tensor names in its
// header, whatever the file is named.
func TestIsAdapterFile(t *testing.T) {
	tr := golden.Path(t, "model", "tiny-flux2-klein", "transformer", "diffusion_pytorch_model.safetensors")
	lokr := writeLoRA(t, t.TempDir(), "style_a.png", nil, "")
	if isAdapterFile(tr) || !isAdapterFile(lokr) || !isAdapterFile(goldenLoRA(t, "lokr_lycoris_f4.safetensors")) {
		t.Error("isAdapterFile does not tell a transformer from an adapter")
	}
}
