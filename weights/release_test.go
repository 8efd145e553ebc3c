package weights_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// TestRelease drops the mapped pages of the tiny model and checks that every tensor reads
// back unchanged afterwards (the pages come back from the file), also after a second Release,
// and that Release after Close is harmless.
func TestRelease(t *testing.T) {
	c, err := weights.Open(filepath.Join(golden.TinyModel(t), "vae"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for _, n := range c.Names() {
		tn, _ := c.Tensor(n)
		want[n] = bytes.Clone(tn.Bytes())
	}
	for round := range 2 {
		c.Release()
		for n, w := range want {
			tn, err := c.Tensor(n)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tn.Bytes(), w) {
				t.Fatalf("round %d: tensor %q changed after Release", round, n)
			}
		}
	}
	nb, _ := c.Tensor("bn.num_batches_tracked")
	if v, err := nb.Int64(); err != nil || v[0] != 1000 {
		t.Errorf("bn.num_batches_tracked after Release = %v, %v", v, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c.Release()
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
