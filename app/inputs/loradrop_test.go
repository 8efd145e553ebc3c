package inputs

import (
	"testing"

	"kleinbild/app/internal/uitest"
	"kleinbild/weights/golden"
)

// isAdapterFile tells an adapter from a model's transformer by the tensor names in its
// header, whatever the file is named.
func TestIsAdapterFile(t *testing.T) {
	tr := golden.Path(t, "model", "tiny-flux2-klein", "transformer", "diffusion_pytorch_model.safetensors")
	lokr := uitest.WriteLoRA(t, t.TempDir(), "style_a.png", nil, "")
	if isAdapterFile(tr) || !isAdapterFile(lokr) || !isAdapterFile(uitest.GoldenLoRA(t, "lokr_lycoris_f4.safetensors")) {
		t.Error("isAdapterFile does not tell a transformer from an adapter")
	}
}
