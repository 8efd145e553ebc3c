package lora_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/lora"
	"kleinbild/weights"
)

// TestParseTruncatedWhileMapped: an adapter file that shrinks between its mapping and the
// reading of its factors (a trainer saving over it) is an error naming the file, not a SIGBUS
// (issue 30 item 2: the app's LoRA folder and adapter restore died of it).
func TestParseTruncatedWhileMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.safetensors")
	layers := lora.Layers{"x_embedder": {2048, 2048}}
	if err := lora.WriteRandom(path, layers, lora.RandomOptions{Rank: 64, Format: lora.FormatDiffusers, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	f, err := weights.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	_, err = lora.Parse(f)
	if !errors.Is(err, weights.ErrFileChanged) || !strings.Contains(err.Error(), path) {
		t.Fatalf("parse of a truncated adapter: %v", err)
	}
}
