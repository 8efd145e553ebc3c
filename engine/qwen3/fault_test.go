package qwen3

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// TestEncodeTruncatedWhileMapped: a text encoder file that shrinks after the encoder mapped
// it ends the next pass with an error wrapping weights.ErrFileChanged and naming where the
// weights are, not a SIGBUS: Encode reads the mapped weights (views on the CPU backends)
// under the guard, whoever calls it (issue 37 item 3a).
func TestEncodeTruncatedWhileMapped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "text_encoder")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(golden.TinyModel(t), "text_encoder"))); err != nil {
		t.Fatal(err)
	}
	e, err := Load(dir, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := os.Truncate(filepath.Join(dir, "model.safetensors"), 4096); err != nil {
		t.Fatal(err)
	}
	ids, mask := make([]int, 8), make([]int, 8)
	for i := range ids {
		ids[i], mask[i] = 100+i, 1
	}
	_, err = e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
	if !errors.Is(err, weights.ErrFileChanged) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("encode over a truncated file: %v", err)
	}
}
