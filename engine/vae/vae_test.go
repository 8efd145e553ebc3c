package vae

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// stageTol is the rel-L2 bound for every float stage (the reference itself moves by about
// 1e-6 between its float32 and float64 runs).
const stageTol = 1e-5

var sizes = []struct{ h, w int }{{32, 48}, {48, 80}, {64, 64}}

// device is the default backend, shared by the package's tests.
var device = sync.OnceValue(func() gpu.Backend { return backends.Default() })

// upload puts data on b as a tensor of the given shape, freed when the test ends.
func upload(t testing.TB, b gpu.Backend, data []float32, shape ...int) gpu.Tensor {
	t.Helper()
	x, err := gpu.FromHost(b, data, shape...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free(x) })
	return x
}

// download reads x back, failing the test on a backend error.
func download(t testing.TB, b gpu.Backend, x gpu.Tensor) []float32 {
	t.Helper()
	out, err := gpu.ToHost(b, x)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// apply runs op from an upload of x into a new tensor of len(x) values on b and returns
// the result read back.
func apply(t testing.TB, b gpu.Backend, x []float32, op func(y, x gpu.Tensor)) []float32 {
	t.Helper()
	in := upload(t, b, x)
	y, err := b.Alloc(gpu.F32, len(x))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free(y) })
	op(y, in)
	return download(t, b, y)
}

// pack is the pipeline's _pack_latents on b: [c, h·w] to tokens [h·w, c].
func pack(t testing.TB, b gpu.Backend, x []float32, c, hw int) []float32 {
	return apply(t, b, x, func(y, x gpu.Tensor) { b.Transpose(y, x, c, hw) })
}

// unpack inverts pack: tokens [h·w, c] to [c, h·w].
func unpack(t testing.TB, b gpu.Backend, x []float32, c, hw int) []float32 {
	return apply(t, b, x, func(y, x gpu.Tensor) { b.Transpose(y, x, hw, c) })
}

func patchify(t testing.TB, b gpu.Backend, x []float32, c, h, w int) []float32 {
	return apply(t, b, x, func(y, x gpu.Tensor) { b.Patchify(y, x, c, h, w) })
}

func unpatchify(t testing.TB, b gpu.Backend, x []float32, c, h, w int) []float32 {
	return apply(t, b, x, func(y, x gpu.Tensor) { b.Unpatchify(y, x, c, h, w) })
}

func loadTiny(t *testing.T) *VAE {
	t.Helper()
	v, err := Load(filepath.Join(golden.TinyModel(t), "vae"), device())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := v.Close(); err != nil {
			t.Error(err)
		}
	})
	return v
}

// exact fails unless got equals want bit for bit (layout stages move values, no arithmetic).
func exact(t *testing.T, label string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", label, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			if bad == 0 {
				t.Errorf("%s: first mismatch at %d: %v, want %v", label, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", label, bad, len(got))
	}
}

// checkIDs verifies the token order pack/unpack assume: token row·w + col has ids (t, row, col, 0).
func checkIDs(t *testing.T, ids []int64, shape []int, h, w int, tc int64) {
	t.Helper()
	if len(shape) != 3 || shape[1] != h*w || shape[2] != 4 {
		t.Fatalf("ids shape %v, want [1 %d 4]", shape, h*w)
	}
	for p := range h * w {
		got := ids[4*p : 4*p+4]
		if got[0] != tc || got[1] != int64(p/w) || got[2] != int64(p%w) || got[3] != 0 {
			t.Fatalf("token %d has ids %v, want [%d %d %d 0]", p, got, tc, p/w, p%w)
		}
	}
}

func TestDecodeGolden(t *testing.T) {
	v := loadTiny(t)
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.h, sz.w), func(t *testing.T) {
			f := golden.Open(t, fmt.Sprintf("vae/decode_%dx%d.safetensors", sz.h, sz.w))
			h2, w2 := sz.h/16, sz.w/16
			pc := v.Config().PatchedChannels()

			packed, _ := golden.F32(t, f, "packed_latents")
			ids, idShape := golden.I64(t, f, "latent_ids")
			checkIDs(t, ids, idShape, h2, w2, 0)

			b := v.Backend()
			unpacked := unpack(t, b, packed, pc, h2*w2)
			want, _ := golden.F32(t, f, "unpacked")
			exact(t, "unpacked", unpacked, want)

			// Each stage runs on the reference input of that stage.
			den := apply(t, b, want, func(y, x gpu.Tensor) { v.Denormalize(y, x, h2, w2) })
			want, _ = golden.F32(t, f, "bn_denormalized")
			golden.Compare(t, "bn_denormalized", den, want, stageTol)
			exact(t, "bn_denormalized", den, want)

			unp := unpatchify(t, b, want, pc, h2, w2)
			want, _ = golden.F32(t, f, "unpatchified")
			exact(t, "unpatchified", unp, want)

			steps, lastTotal := 0, 0
			dec, err := v.Decode(context.Background(), want, 2*h2, 2*w2, func(done, total int) {
				steps++
				lastTotal = total
				if done != steps || done > total {
					t.Errorf("progress %d/%d after %d calls", done, total, steps)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if steps != lastTotal || steps == 0 {
				t.Errorf("progress ended at %d/%d", steps, lastTotal)
			}
			want, _ = golden.F32(t, f, "decoded")
			golden.Compare(t, "decoded", dec, want, stageTol)

			wantNP, _ := golden.F32(t, f, "image_np")
			golden.Compare(t, "image_np", ToNP(dec, sz.h, sz.w), wantNP, stageTol)
			exact(t, "image_np (from reference decoded)", ToNP(want, sz.h, sz.w), wantNP)

			// uint8 from our own decode: within one level (x·255 may sit on .5).
			img := ToRGB(dec, sz.h, sz.w)
			u8t, err := f.Tensor("image_uint8")
			if err != nil {
				t.Fatal(err)
			}
			u8, err := u8t.Uint8()
			if err != nil {
				t.Fatal(err)
			}
			diff, worst := 0, 0
			for y := range sz.h {
				for x := range sz.w {
					for c := range 3 {
						g := int(img.Pix[y*img.Stride+4*x+c])
						r := int(u8[(y*sz.w+x)*3+c])
						if d := max(g-r, r-g); d > 0 {
							diff++
							worst = max(worst, d)
						}
					}
					if a := img.Pix[y*img.Stride+4*x+3]; a != 255 {
						t.Fatalf("alpha %d at %d,%d", a, x, y)
					}
				}
			}
			t.Logf("image_uint8: %d of %d values differ (max %d level)", diff, len(u8), worst)
			if worst > 1 {
				t.Errorf("image_uint8 differs by up to %d levels", worst)
			}
			// From the reference decoded tensor the bytes must be exact.
			ref := ToRGB(want, sz.h, sz.w)
			for y := range sz.h {
				for x := range sz.w {
					for c := range 3 {
						if g, r := ref.Pix[y*ref.Stride+4*x+c], u8[(y*sz.w+x)*3+c]; g != r {
							t.Fatalf("ToRGB(reference decoded) at %d,%d,%d: %d, want %d", x, y, c, g, r)
						}
					}
				}
			}
		})
	}
}

func TestEncodeGolden(t *testing.T) {
	v := loadTiny(t)
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.h, sz.w), func(t *testing.T) {
			f := golden.Open(t, fmt.Sprintf("vae/encode_%dx%d.safetensors", sz.h, sz.w))
			pc := v.Config().PatchedChannels()
			lc := v.Config().LatentChannels
			lh, lw := sz.h/8, sz.w/8

			img, _ := golden.F32(t, f, "image")
			lat, err := v.Encode(context.Background(), img, sz.h, sz.w, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := golden.F32(t, f, "latent_mode")
			golden.Compare(t, "latent_mode", lat, want, stageTol)

			b := v.Backend()
			pat := patchify(t, b, want, lc, lh, lw)
			want, _ = golden.F32(t, f, "patchified")
			exact(t, "patchified", pat, want)

			norm := apply(t, b, want, func(y, x gpu.Tensor) { v.Normalize(y, x, lh/2, lw/2) })
			want, _ = golden.F32(t, f, "image_latents")
			golden.Compare(t, "image_latents", norm, want, stageTol)
			exact(t, "image_latents", norm, want)

			packed := pack(t, b, want, pc, lh/2*lw/2)
			want, _ = golden.F32(t, f, "packed")
			exact(t, "packed", packed, want)

			ids, idShape := golden.I64(t, f, "image_latent_ids_T10")
			checkIDs(t, ids, idShape, lh/2, lw/2, 10)
		})
	}
}

// TestChain runs encode -> patchify -> normalize -> pack -> unpack -> denormalize ->
// unpatchify -> decode end to end on the backend, as the pipeline does, and checks the
// layout inverses on the way.
func TestChain(t *testing.T) {
	v := loadTiny(t)
	b := v.Backend()
	f := golden.Open(t, "vae/encode_48x80.safetensors")
	img, _ := golden.F32(t, f, "image")
	lc, pc := v.Config().LatentChannels, v.Config().PatchedChannels()
	n := lc * 6 * 10
	imgT := upload(t, b, img, 3, 48, 80)
	latT, err := v.EncodeTensor(context.Background(), imgT, 48, 80, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free(latT) })
	if s := latT.Shape(); len(s) != 3 || s[0] != lc || s[1] != 6 || s[2] != 10 {
		t.Errorf("EncodeTensor shape %v, want [%d 6 10]", s, lc)
	}
	lat := download(t, b, latT)
	hostLat, err := v.Encode(context.Background(), img, 48, 80, nil)
	if err != nil {
		t.Fatal(err)
	}
	exact(t, "EncodeTensor = Encode", lat, hostLat)

	tmp := make([]gpu.Tensor, 3)
	for i := range tmp {
		if tmp[i], err = b.Alloc(gpu.F32, n); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Free(tmp[i]) })
	}
	x, y, z := tmp[0], tmp[1], tmp[2]
	b.Patchify(x, latT, lc, 6, 10)
	b.Unpatchify(y, x, pc, 3, 5)
	exact(t, "Unpatchify(Patchify)", download(t, b, y), lat)
	patched := download(t, b, x)
	v.Normalize(x, x, 3, 5) // in place
	want, _ := golden.F32(t, f, "packed")
	b.Transpose(y, x, pc, 15)
	golden.Compare(t, "chained packed", download(t, b, y), want, stageTol)
	b.Transpose(z, y, 15, pc)
	exact(t, "unpack(pack)", download(t, b, z), download(t, b, x))
	v.Denormalize(z, z, 3, 5) // in place
	rt, _ := golden.Errors(download(t, b, z), patched)
	if rt > 1e-6 {
		t.Errorf("Denormalize(Normalize) rel-L2 %.3g", rt)
	}
	b.Unpatchify(y, z, pc, 3, 5)
	dec, err := v.DecodeTensor(context.Background(), y.Reshape(lc, 6, 10), 6, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free(dec) })
	if s := dec.Shape(); len(s) != 3 || s[0] != 3 || s[1] != 48 || s[2] != 80 {
		t.Fatalf("DecodeTensor shape %v, want [3 48 80]", s)
	}
	hostDec, err := v.Decode(context.Background(), download(t, b, y), 6, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	exact(t, "DecodeTensor = Decode", download(t, b, dec), hostDec)
}

func TestLoadConfig(t *testing.T) {
	dir := filepath.Join(golden.TinyModel(t), "vae")
	for _, p := range []string{dir, filepath.Join(dir, "config.json")} {
		cfg, err := LoadConfig(p)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.LatentChannels != 32 || cfg.NormNumGroups != 8 || len(cfg.BlockOutChannels) != 4 ||
			cfg.BlockOutChannels[3] != 64 || cfg.BatchNormEps != 1e-4 || !cfg.MidBlockAddAttention ||
			cfg.ScaleFactor() != 8 || cfg.PatchedChannels() != 128 {
			t.Errorf("unexpected config %+v", cfg)
		}
	}
}

// tinyTensors returns every tensor of the tiny VAE for writing modified copies.
func tinyTensors(t *testing.T) []weights.OutTensor {
	t.Helper()
	f := golden.Open(t, "model/tiny-flux2-klein/vae/diffusion_pytorch_model.safetensors")
	var out []weights.OutTensor
	for _, name := range f.Names() {
		tn, err := f.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		o := weights.OutTensor{Name: name, Shape: append([]int(nil), tn.Shape...)}
		switch tn.DType {
		case weights.BF16:
			b, _ := tn.BF16()
			o.BF16 = append([]uint16(nil), b...)
		case weights.I64:
			o.I64, _ = tn.Int64()
		default:
			t.Fatalf("unexpected dtype %s of %s", tn.DType, name)
		}
		out = append(out, o)
	}
	return out
}
