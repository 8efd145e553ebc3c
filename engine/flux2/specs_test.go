package flux2

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// TestTensorSpecsMatchGolden checks that TensorSpecs of the tiny config lists exactly the
// tensors (names and shapes) of the tiny golden checkpoint, which diffusers/transformers wrote.
func TestTensorSpecsMatchGolden(t *testing.T) {
	dir := filepath.Join(golden.TinyModel(t), "transformer")
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	ck, err := weights.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	var got, want []string
	for _, s := range TensorSpecs(cfg) {
		got = append(got, fmt.Sprint(s.Name, " ", s.Shape))
	}
	for _, name := range ck.Names() {
		tn, err := ck.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprint(name, " ", tn.Shape))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("TensorSpecs lists %d tensors, the golden checkpoint holds %d", len(got), len(want))
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("listed, not in checkpoint: %s", g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("in checkpoint, not listed: %s", w)
			}
		}
	}
}
