package qwen3

import (
	"path/filepath"
	"testing"

	"kleinbild/weights/golden"
)

// TestTensorSpecsMatchGolden checks that TensorSpecs of the tiny config lists exactly the
// tensors (names and shapes) of the tiny golden checkpoint, which the reference code wrote.
func TestTensorSpecsMatchGolden(t *testing.T) {
	dir := filepath.Join(golden.TinyModel(t), "text_encoder")
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckSpecs(t, dir, TensorSpecs(cfg))
}
