package vae

import (
	"path/filepath"
	"testing"

	"kleinbild/weights/golden"
)

// TestTensorSpecsMatchGolden checks that TensorSpecs of the tiny config lists exactly the
// tensors (names and shapes) of the tiny golden checkpoint, which the reference code wrote.
func TestTensorSpecsMatchGolden(t *testing.T) {
	dir := filepath.Join(golden.TinyModel(t), "vae")
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	// bn.num_batches_tracked is in the real file too, read by nobody.
	specs := append(TensorSpecs(cfg), TensorSpec{Name: "bn.num_batches_tracked", Shape: []int{}})
	golden.CheckSpecs(t, dir, specs)
}
