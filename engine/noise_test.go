package engine

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/engine/torchrand"
	"kleinbild/weights/golden"
)

func mustNoise(t *testing.T, kind string, seed uint64, c, gw, gh int) []float32 {
	t.Helper()
	n, err := InitialNoise(kind, seed, c, gw, gh)
	if err != nil {
		t.Fatal(err)
	}
	if len(n) != c*gw*gh {
		t.Fatalf("%s noise %d×%d×%d has %d values", kind, c, gh, gw, len(n))
	}
	return n
}

// TestNoiseTorchIsDefault: "" and "torch" are torch.randn of the latent's shape, unchanged
// (the golden pipeline tests check the same noise against the reference's latents).
func TestNoiseTorchIsDefault(t *testing.T) {
	want := torchrand.New(42).Randn(8 * 5 * 3)
	for _, kind := range []string{"", NoiseTorch} {
		if got := mustNoise(t, kind, 42, 8, 3, 5); !slices.Equal(got, want) {
			t.Fatalf("noise %q differs from torch.randn", kind)
		}
	}
	if _, err := InitialNoise("perlin", 1, 8, 3, 5); err == nil || !strings.Contains(err.Error(), "stable") {
		t.Fatalf("unknown noise: error %v, want one listing the kinds", err)
	}
	if _, err := InitialNoise(NoiseStable, 1, 8, 0, 5); err == nil {
		t.Fatal("empty latent: no error")
	}
	if err := CheckRequest(Request{Settings: Settings{Noise: "Stable"}}, true); err == nil {
		t.Fatal("CheckRequest accepted noise \"Stable\"")
	}
}

// TestStableNoiseDeterministic: one seed gives the same noise every time, another seed
// other noise, and stable noise is not torch noise.
func TestStableNoiseDeterministic(t *testing.T) {
	a := mustNoise(t, NoiseStable, 7, 4, 20, 12)
	b := mustNoise(t, NoiseStable, 7, 4, 20, 12)
	if !slices.Equal(a, b) {
		t.Fatal("stable noise differs between two calls with one seed")
	}
	if c := mustNoise(t, NoiseStable, 8, 4, 20, 12); corr(a, c) > 0.05 {
		t.Fatalf("seeds 7 and 8 correlate %.3f", corr(a, c))
	}
	if tn := mustNoise(t, NoiseTorch, 7, 4, 20, 12); slices.Equal(a, tn) {
		t.Fatal("stable noise equals torch noise")
	}
}

// TestStableNoiseStatistics: the values are standard normal: over 128×64×64 values (and a
// non-square, non-nesting 48×80 latent, and one beyond the grid) the mean is within
// 5/sqrt(n) of 0 and the variance within 5·sqrt(2/n) of 1 (5 standard errors), and no
// two neighbours are correlated beyond 5/sqrt(n) (white noise, as the model expects).
func TestStableNoiseStatistics(t *testing.T) {
	for _, sz := range [][2]int{{64, 64}, {80, 48}, {120, 16}} {
		gw, gh := sz[0], sz[1]
		x := mustNoise(t, NoiseStable, 3, latentChannels, gw, gh)
		n := float64(len(x))
		var sum, sq, lag float64
		for i, v := range x {
			sum += float64(v)
			sq += float64(v) * float64(v)
			if i%gw != gw-1 {
				lag += float64(v) * float64(x[i+1])
			}
		}
		mean, variance := sum/n, sq/n-(sum/n)*(sum/n)
		lag /= n * float64(gw-1) / float64(gw)
		if math.Abs(mean) > 5/math.Sqrt(n) || math.Abs(variance-1) > 5*math.Sqrt(2/n) || math.Abs(lag) > 5/math.Sqrt(n) {
			t.Errorf("%d×%d: mean %.5f, variance %.5f, neighbour correlation %.5f", gw, gh, mean, variance, lag)
		}
	}
}

// TestStableNoiseSizeStable: the seed's composition survives a size change. For nesting
// sizes (32² in 64², 16² in 32², 24×40 in 48×80) each coarse cell is exactly the
// count-weighted sum of its 2×2 children (max abs error 1e-5), and the plain 2×2 mean of
// the fine latent (times 2) matches the coarse latent within rel-L2 0.25 (measured 0.17; unrelated noise gives 1.41). For sizes that
// do not nest (48² and 64²), both area-averaged to 16² still correlate above 0.75. Torch
// noise, which depends on the size, fails the same check (correlation below 0.1).
func TestStableNoiseSizeStable(t *testing.T) {
	for _, c := range []struct{ gw, gh int }{{32, 32}, {16, 16}, {40, 24}} {
		coarse := mustNoise(t, NoiseStable, 99, 4, c.gw, c.gh)
		fine := mustNoise(t, NoiseStable, 99, 4, 2*c.gw, 2*c.gh)
		exact := nestedSum(fine, 4, c.gw, c.gh, StableNoiseGrid)
		if d := maxAbs(coarse, exact); d > 1e-5 {
			t.Errorf("%d×%d in %d×%d: weighted sum of children differs by %g", c.gw, c.gh, 2*c.gw, 2*c.gh, d)
		}
		if r := relL2(boxMean(fine, 4, 2*c.gw, 2*c.gh, 2, 2), coarse); r > 0.25 {
			t.Errorf("%d×%d in %d×%d: 2×2 mean differs by rel-L2 %.3f", c.gw, c.gh, 2*c.gw, 2*c.gh, r)
		}
	}
	low := func(kind string, side int) []float32 {
		x := mustNoise(t, kind, 5, 8, side, side)
		return boxMean(x, 8, side, side, side/16, side/16) // exact area means at 16²
	}
	if r := corr(low(NoiseStable, 48), low(NoiseStable, 64)); r < 0.75 {
		t.Errorf("stable noise: 48² and 64² at 16² correlate %.3f, want > 0.75", r)
	}
	if r := corr(low(NoiseTorch, 48), low(NoiseTorch, 64)); math.Abs(r) > 0.1 {
		t.Errorf("torch noise: 48² and 64² at 16² correlate %.3f: the check cannot tell", r)
	}
}

// nestedSum rebuilds the coarse latent [c, gh, gw] from the fine one [c, 2gh, 2gw]: each
// child, times the square root of its grid-cell count, summed, divided by the square root
// of the parent's count.
func nestedSum(fine []float32, ch, gw, gh, g int) []float32 {
	fr, fc := spans(g, 2*gh), spans(g, 2*gw)
	out := make([]float32, ch*gw*gh)
	for c := range ch {
		for y := range gh {
			for x := range gw {
				var s, n float64
				for dy := range 2 {
					for dx := range 2 {
						fy, fx := 2*y+dy, 2*x+dx
						k := float64((fr[fy+1] - fr[fy]) * (fc[fx+1] - fc[fx]))
						s += float64(fine[(c*2*gh+fy)*2*gw+fx]) * math.Sqrt(k)
						n += k
					}
				}
				out[(c*gh+y)*gw+x] = float32(s / math.Sqrt(n))
			}
		}
	}
	return out
}

// boxMean averages bw×bh blocks of x [c, h, w] and scales by sqrt(bw·bh) (unit variance).
func boxMean(x []float32, ch, w, h, bw, bh int) []float32 {
	ow, oh := w/bw, h/bh
	out := make([]float32, ch*ow*oh)
	for c := range ch {
		for y := range oh {
			for xx := range ow {
				var s float64
				for dy := range bh {
					for dx := range bw {
						s += float64(x[(c*h+y*bh+dy)*w+xx*bw+dx])
					}
				}
				out[(c*oh+y)*ow+xx] = float32(s / math.Sqrt(float64(bw*bh)))
			}
		}
	}
	return out
}

func corr(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func relL2(a, b []float32) float64 {
	var d, n float64
	for i := range a {
		d += (float64(a[i]) - float64(b[i])) * (float64(a[i]) - float64(b[i]))
		n += float64(b[i]) * float64(b[i])
	}
	return math.Sqrt(d / n)
}

func maxAbs(a, b []float32) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i])-float64(b[i])))
	}
	return m
}

// TestGenerateStableNoise runs the tiny model with stable noise: the result and its
// metadata say which noise was used, the image differs from torch noise's, and the
// latents the sampler starts from are InitialNoise's.
func TestGenerateStableNoise(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	req := Request{Settings: Settings{Prompt: "a red cube", Width: 64, Height: 48, Steps: 1, Seed: 3, Noise: NoiseStable}}
	var init []float32
	req.Dump = func(name string, _ []int, data []float32) error {
		if name == "latents_init" {
			init = slices.Clone(data)
		}
		return nil
	}
	res, err := m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := mustNoise(t, NoiseStable, 3, latentChannels, 4, 3); !slices.Equal(init, want) {
		t.Fatal("the sampler did not start from the stable noise")
	}
	if res.Noise != NoiseStable {
		t.Fatalf("result noise %q, want %q", res.Noise, NoiseStable)
	}
	meta, err := Metadata(m.Info(), req, nil, res, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Noise != NoiseStable || !strings.Contains(meta.Parameters(), "Noise: stable") {
		t.Fatalf("metadata noise %q, parameters %q", meta.Noise, meta.Parameters())
	}
	png, err := imageio.EncodePNG(res.Image, meta)
	if err != nil {
		t.Fatal(err)
	}
	back, ok, err := imageio.ReadMetadataFrom(bytes.NewReader(png))
	if err != nil || !ok || back.Noise != NoiseStable {
		t.Fatalf("metadata read back: noise %q, ok %v, error %v", back.Noise, ok, err)
	}
	req.Noise, req.Dump = "", nil
	tr, err := m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Noise != NoiseTorch || slices.Equal(tr.Image.Pix, res.Image.Pix) {
		t.Fatalf("torch run: noise %q, same image %v", tr.Noise, slices.Equal(tr.Image.Pix, res.Image.Pix))
	}
}
