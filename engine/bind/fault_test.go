package bind_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/bind"
	"kleinbild/gpu"
	"kleinbild/weights"
)

// copyingBackend reads every BF16 weight it is given, as a device backend's upload does.
type copyingBackend struct{ *countingBackend }

func (b copyingBackend) WeightBF16(bits []uint16, shape ...int) (gpu.Tensor, error) {
	own := append([]uint16(nil), bits...)
	return b.countingBackend.WeightBF16(own, shape...)
}

// TestUploadTruncatedWhileMapped: a weight file that shrinks between its mapping and the
// upload of its tensors (a device backend copies them) is a load error naming the file and
// wrapping weights.ErrFileChanged, not a SIGBUS (issue 37 item 3a).
func TestUploadTruncatedWhileMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.safetensors")
	const out, in = 64, 1024
	if err := weights.WriteFile(path, []weights.OutTensor{{Name: "w", Shape: []int{out, in}, BF16: make([]uint16, out*in)}}, nil); err != nil {
		t.Fatal(err)
	}
	ck, err := weights.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	b := copyingBackend{backend(t)}
	bd := bind.New(ck, b)
	m := bd.Matrix("w", out, in, true)
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	_, err = m.Upload(b)
	if !errors.Is(err, weights.ErrFileChanged) || !strings.Contains(err.Error(), path) {
		t.Fatalf("upload of a truncated file: %v", err)
	}
	bd.Linear("w", out, in)
	if err := bd.Err(3); !errors.Is(err, weights.ErrFileChanged) {
		t.Fatalf("Linear of a truncated file: %v", err)
	}
}
