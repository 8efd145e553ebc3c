package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// TestTruncatedWeightsWhileMapped: a transformer or VAE file truncated after the model has
// mapped it ends the next run with an error naming the file; the process stays up (issue 23
// item 7: SIGBUS in the bf16 widening kernel killed it).
func TestTruncatedWeightsWhileMapped(t *testing.T) {
	for _, comp := range []string{"transformer", "vae"} {
		t.Run(comp, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			if err := os.CopyFS(dir, os.DirFS(golden.TinyModel(t))); err != nil {
				t.Fatal(err)
			}
			m, err := Open(dir, backends.Default(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			victim := filepath.Join(dir, comp, "diffusion_pytorch_model.safetensors")
			if err := os.Truncate(victim, 4096); err != nil {
				t.Fatal(err)
			}
			_, err = m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 64, Height: 64, Steps: 1, Seed: 1}}, nil)
			if !errors.Is(err, ErrWeightsChanged) || !strings.Contains(err.Error(), victim) {
				t.Fatalf("run over a truncated %s: %v", comp, err)
			}
		})
	}
}

// TestTruncatedSingleFileWhileMapped: a transformer read from a single file (a GGUF that
// replaces the folder's) is watched too: truncating it stops the run with an error naming
// it (the watch once covered the folder's safetensors files only).
func TestTruncatedSingleFileWhileMapped(t *testing.T) {
	file := filepath.Join(t.TempDir(), "flux.gguf")
	raw, err := os.ReadFile(golden.Path(t, q8mixFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := OpenModelSource(golden.TinyModel(t), Overrides{Transformer: file})
	if err != nil {
		t.Fatal(err)
	}
	m, err := OpenSource(src, backends.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := os.Truncate(file, 4096); err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 64, Height: 64, Steps: 1, Seed: 1}}, nil)
	if !errors.Is(err, ErrWeightsChanged) || !strings.Contains(err.Error(), file) {
		t.Fatalf("run over a truncated transformer file: %v", err)
	}
}

// TestScanTruncatedWhileMapped: a weight file that shrinks while info --deep scans it ends
// the scan with an error naming the file; the process stays up (issue 30 item 3).
func TestScanTruncatedWhileMapped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	if err := os.CopyFS(dir, os.DirFS(golden.TinyModel(t))); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "vae", "diffusion_pytorch_model.safetensors")
	truncated := false
	_, err := ScanWeights(context.Background(), dir, func(ScanProgress) {
		if !truncated { // all three files are mapped before the first tensor is scanned
			truncated = true
			if err := os.Truncate(victim, 4096); err != nil {
				t.Error(err)
			}
		}
	})
	if !errors.Is(err, weights.ErrFileChanged) || !strings.Contains(err.Error(), victim) {
		t.Fatalf("scan over a truncated vae: %v", err)
	}
}
