package lora_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
	"kleinbild/weights"
	"kleinbild/weights/golden"
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

// TestInspectMatchesOpen: the header-only description of every golden adapter (each format,
// LoRA and LoKr, fused qkv) is the one Open gives, and Inspect reads no factor: a file whose
// factors hold NaN (which Open refuses) is described all the same (issue 30: the LoRA
// folder's listing read whole files, 1.4 GB for a 600 MB F32 adapter).
func TestInspectMatchesOpen(t *testing.T) {
	files, _ := filepath.Glob(golden.Path(t, "lora", "loras", "*.safetensors"))
	dir := t.TempDir()
	cfg, err := flux2.LoadConfig(filepath.Join(golden.TinyModel(t), "transformer", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	layers := lora.LayersOf(flux2.TensorSpecs(cfg))
	for _, f := range []lora.Format{lora.FormatDiffusers, lora.FormatBFL, lora.FormatKohya, lora.FormatLyCORIS} {
		p := filepath.Join(dir, f.String()+".safetensors")
		if err := lora.WriteRandom(p, layers, lora.RandomOptions{Rank: 3, Format: f, Seed: 2}); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if len(files) < 8 {
		t.Fatalf("only %d adapter files", len(files))
	}
	for _, p := range files {
		a, err := lora.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lora.Inspect(p)
		if err != nil || !reflect.DeepEqual(got, a.Summary()) {
			t.Errorf("%s: Inspect %+v (%v), Open %+v", filepath.Base(p), got, err, a.Summary())
		}
	}
	// The same file with NaN factors: Open refuses it, Inspect never looks.
	nan := filepath.Join(dir, "nan.safetensors")
	raw, err := os.ReadFile(files[len(files)-4]) // the diffusers one: no fused qkv
	if err != nil {
		t.Fatal(err)
	}
	f, err := weights.ParseBytes("x", raw)
	if err != nil {
		t.Fatal(err)
	}
	var out []weights.OutTensor
	for _, n := range f.Names() {
		tt, _ := f.Tensor(n)
		v := make([]float32, tt.Numel())
		for i := range v {
			v[i] = float32(math.NaN())
		}
		out = append(out, weights.OutTensor{Name: n, Shape: tt.Shape, F32: v})
	}
	if err := weights.WriteFile(nan, out, f.Metadata); err != nil {
		t.Fatal(err)
	}
	if _, err := lora.Open(nan); err == nil {
		t.Fatal("Open accepted NaN factors")
	}
	if s, err := lora.Inspect(nan); err != nil || len(s.Ranks) != 1 || s.Ranks[0] != 3 {
		t.Errorf("Inspect of NaN factors: %+v, %v", s, err)
	}
}
