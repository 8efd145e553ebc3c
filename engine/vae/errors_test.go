package vae

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// writeVAE writes config.json (copied from the tiny model unless cfg is non-empty) and the
// given tensors into a temporary vae/ folder.
func writeVAE(t *testing.T, tensors []weights.OutTensor, cfg string) string {
	t.Helper()
	dir := t.TempDir()
	if cfg == "" {
		raw, err := os.ReadFile(filepath.Join(golden.TinyModel(t), "vae", "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		cfg = string(raw)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if tensors != nil {
		if err := weights.WriteFile(filepath.Join(dir, "diffusion_pytorch_model.safetensors"), tensors, nil); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	base := tinyTensors(t)
	edit := func(fn func([]weights.OutTensor) []weights.OutTensor) []weights.OutTensor {
		ts := make([]weights.OutTensor, len(base))
		copy(ts, base)
		return fn(ts)
	}
	find := func(ts []weights.OutTensor, name string) int {
		for i := range ts {
			if ts[i].Name == name {
				return i
			}
		}
		t.Fatalf("no tensor %s", name)
		return -1
	}

	t.Run("unchanged copy loads", func(t *testing.T) {
		v, err := Load(writeVAE(t, base, ""), device())
		if err != nil {
			t.Fatal(err)
		}
		v.Close()
	})
	t.Run("missing tensor", func(t *testing.T) {
		const name = "decoder.up_blocks.2.resnets.0.conv_shortcut.weight"
		ts := edit(func(ts []weights.OutTensor) []weights.OutTensor {
			i := find(ts, name)
			return append(ts[:i], ts[i+1:]...)
		})
		_, err := Load(writeVAE(t, ts, ""), device())
		wantErr(t, err, name, "diffusion_pytorch_model.safetensors")
	})
	t.Run("wrong shape", func(t *testing.T) {
		const name = "encoder.mid_block.attentions.0.to_q.weight"
		ts := edit(func(ts []weights.OutTensor) []weights.OutTensor {
			i := find(ts, name)
			ts[i].Shape = []int{32, 128} // same element count, wrong shape
			return ts
		})
		_, err := Load(writeVAE(t, ts, ""), device())
		wantErr(t, err, name, "[32 128]", "[64 64]", "diffusion_pytorch_model.safetensors")
	})
	t.Run("wrong dtype", func(t *testing.T) {
		const name = "bn.running_var"
		ts := edit(func(ts []weights.OutTensor) []weights.OutTensor {
			i := find(ts, name)
			ts[i] = weights.OutTensor{Name: name, Shape: []int{128}, I64: make([]int64, 128)}
			return ts
		})
		_, err := Load(writeVAE(t, ts, ""), device())
		wantErr(t, err, name, "I64")
	})
	t.Run("several problems listed", func(t *testing.T) {
		ts := edit(func(ts []weights.OutTensor) []weights.OutTensor {
			var out []weights.OutTensor
			for _, x := range ts {
				if x.Name != "quant_conv.bias" && x.Name != "decoder.conv_out.weight" {
					out = append(out, x)
				}
			}
			return out
		})
		_, err := Load(writeVAE(t, ts, ""), device())
		wantErr(t, err, "quant_conv.bias", "decoder.conv_out.weight")
	})
	t.Run("no weights", func(t *testing.T) {
		_, err := Load(writeVAE(t, nil, ""), device())
		wantErr(t, err, "safetensors")
	})
	t.Run("truncated weights", func(t *testing.T) {
		dir := writeVAE(t, base, "")
		p := filepath.Join(dir, "diffusion_pytorch_model.safetensors")
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, st.Size()/2); err != nil {
			t.Fatal(err)
		}
		_, err = Load(dir, device())
		wantErr(t, err, "diffusion_pytorch_model.safetensors")
	})
	t.Run("no config", func(t *testing.T) {
		dir := writeVAE(t, base, "")
		os.Remove(filepath.Join(dir, "config.json"))
		_, err := Load(dir, device())
		wantErr(t, err, "config.json")
	})
	t.Run("malformed config", func(t *testing.T) {
		_, err := Load(writeVAE(t, base, `{"latent_channels": "x"`), device())
		wantErr(t, err, "config.json", "malformed")
	})
	t.Run("invalid config", func(t *testing.T) {
		_, err := Load(writeVAE(t, base, `{"block_out_channels": [16, 32, 64, 64], "norm_num_groups": 7, "patch_size": [1, 1]}`), device())
		wantErr(t, err, "config.json", "norm_num_groups 7", "patch_size")
	})
	t.Run("config for another network", func(t *testing.T) {
		// The real model's config against the tiny weights: every shape is wrong.
		_, err := Load(writeVAE(t, base, `{}`), device())
		wantErr(t, err, "encoder.conv_in.weight", "[16 3 3 3]", "more problems")
	})
	t.Run("nil backend", func(t *testing.T) {
		_, err := Load(writeVAE(t, base, ""), nil)
		wantErr(t, err, "nil backend")
	})
}

func TestBadSizes(t *testing.T) {
	v := loadTiny(t)
	ctx := context.Background()
	lat := make([]float32, 32*4*6)
	for _, c := range []struct {
		name string
		x    []float32
		h, w int
	}{
		{"zero height", lat, 0, 6},
		{"negative width", lat, 4, -6},
		{"length mismatch", lat, 4, 5},
		{"huge", lat, 1 << 20, 1 << 20},
	} {
		if _, err := v.Decode(ctx, c.x, c.h, c.w, nil); err == nil {
			t.Errorf("Decode %s: no error", c.name)
		} else {
			t.Logf("Decode %s: %v", c.name, err)
		}
	}
	img := make([]float32, 3*32*48)
	for _, c := range []struct {
		name string
		x    []float32
		h, w int
	}{
		{"zero", img, 0, 48},
		{"not a multiple of 8", img[:3*30*48], 30, 48},
		{"width not a multiple of 8", img[:3*32*44], 32, 44},
		{"length mismatch", img, 32, 40},
	} {
		if _, err := v.Encode(ctx, c.x, c.h, c.w, nil); err == nil {
			t.Errorf("Encode %s: no error", c.name)
		} else {
			t.Logf("Encode %s: %v", c.name, err)
		}
	}
	// The tensor versions check the same, and the dtype.
	b := v.Backend()
	latT := upload(t, b, lat, len(lat))
	if _, err := v.DecodeTensor(ctx, latT, 4, 5, nil); err == nil {
		t.Error("DecodeTensor length mismatch: no error")
	}
	imgT := upload(t, b, img, len(img))
	if _, err := v.EncodeTensor(ctx, imgT, 32, 40, nil); err == nil {
		t.Error("EncodeTensor length mismatch: no error")
	}
	bits := make([]uint16, len(lat))
	bf, err := b.WeightBF16(bits, 32, 4, 6)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(bf)
	if _, err := v.DecodeTensor(ctx, bf, 4, 6, nil); err == nil {
		t.Error("DecodeTensor of a bf16 tensor: no error")
	} else {
		t.Logf("DecodeTensor of a bf16 tensor: %v", err)
	}
}

func TestClosed(t *testing.T) {
	v, err := Load(filepath.Join(golden.TinyModel(t), "vae"), device())
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := v.Decode(context.Background(), make([]float32, 32*2*2), 2, 2, nil); err == nil {
		t.Error("Decode after Close: no error")
	}
	if _, err := v.Encode(context.Background(), make([]float32, 3*16*16), 16, 16, nil); err == nil {
		t.Error("Encode after Close: no error")
	}
	b := v.Backend()
	lat := upload(t, b, make([]float32, 32*2*2), 32, 2, 2)
	if _, err := v.DecodeTensor(context.Background(), lat, 2, 2, nil); err == nil {
		t.Error("DecodeTensor after Close: no error")
	}
	img := upload(t, b, make([]float32, 3*16*16), 3, 16, 16)
	if _, err := v.EncodeTensor(context.Background(), img, 16, 16, nil); err == nil {
		t.Error("EncodeTensor after Close: no error")
	}
	// The BatchNorm statistics are freed with the weights: the backend reports the use.
	x := upload(t, b, make([]float32, 128), 128)
	for name, op := range map[string]func(y, x gpu.Tensor, h, w int){"Normalize": v.Normalize, "Denormalize": v.Denormalize} {
		op(x, x, 1, 1)
		if err := b.Sync(); err == nil {
			t.Errorf("%s after Close: no error", name)
		} else {
			t.Logf("%s after Close: %v", name, err)
		}
	}
}

func TestCancel(t *testing.T) {
	v := loadTiny(t)
	lat := make([]float32, 32*4*6)
	for i := range lat {
		lat[i] = float32(math.Sin(float64(i)))
	}
	img := make([]float32, 3*32*48)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	if _, err := v.Decode(ctx, lat, 4, 6, func(int, int) { called = true }); !errors.Is(err, context.Canceled) {
		t.Errorf("Decode with cancelled context: %v", err)
	}
	if _, err := v.Encode(ctx, img, 32, 48, func(int, int) { called = true }); !errors.Is(err, context.Canceled) {
		t.Errorf("Encode with cancelled context: %v", err)
	}
	if called {
		t.Error("progress called although the context was cancelled up front")
	}

	for _, enc := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		last, total := 0, 0
		progress := func(done, tot int) {
			last, total = done, tot
			if done == 3 {
				cancel()
			}
		}
		var err error
		if enc {
			_, err = v.Encode(ctx, img, 32, 48, progress)
		} else {
			_, err = v.Decode(ctx, lat, 4, 6, progress)
		}
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("encode=%v: cancelled mid-way: %v", enc, err)
		}
		if last != 3 || total <= 3 {
			t.Errorf("encode=%v: stopped at %d/%d, want 3/(>3)", enc, last, total)
		}
	}
}

// TestMemory checks the backend's accounting: Load makes the weight tensors, a pass frees
// its activations and Close frees the weights.
func TestMemory(t *testing.T) {
	b := device()
	before := b.Memory()
	v, err := Load(filepath.Join(golden.TinyModel(t), "vae"), b)
	if err != nil {
		t.Fatal(err)
	}
	loaded := b.Memory()
	if loaded.Viewed+loaded.Resident <= before.Viewed+before.Resident {
		t.Errorf("after Load: %+v, before %+v: no weights viewed or copied", loaded, before)
	}
	b.ResetPeak()
	if _, err := v.Decode(context.Background(), make([]float32, 32*4*6), 4, 6, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Encode(context.Background(), make([]float32, 3*32*48), 32, 48, nil); err != nil {
		t.Fatal(err)
	}
	if m := b.Memory(); m.Resident != loaded.Resident || m.Peak <= loaded.Resident {
		t.Errorf("after a decode and an encode: %+v, want resident %d and a higher peak", m, loaded.Resident)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if m := b.Memory(); m.Viewed != before.Viewed || m.Resident != before.Resident {
		t.Errorf("after Close: %+v, want %+v", m, before)
	}
}
