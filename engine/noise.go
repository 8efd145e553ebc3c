package engine

import (
	"fmt"
	"math"

	"kleinbild/engine/torchrand"
)

// The kinds of initial noise a seed can select (Request.Noise).
const (
	// NoiseTorch is torch.randn of the latent's shape with a CPU generator: exactly what
	// diffusers draws, so images match the reference pipeline. The default. It depends on
	// the size: the same seed at another size gives another picture.
	NoiseTorch = "torch"
	// NoiseStable is size-stable noise (like flux2.c's size-independent seeds): the seed
	// draws white noise on a fixed grid of StableNoiseGrid² latent cells per channel, and
	// each cell of the target latent is the normalised sum of the grid cells it covers
	// (an area resample that keeps unit variance). Every size sees the same field, so the
	// same seed gives the same composition at 256² and 512²; sizes whose latent grids nest
	// (one side a multiple of the other) agree exactly in their low frequencies.
	NoiseStable = "stable"
)

// StableNoiseGrid is the side, in latent cells, of the grid NoiseStable draws from (1792 px
// of output, the app's largest size when it was chosen), so every latent up to it is an
// area resample of it. It is a constant of its own, independent of MaxSidePx: changing it
// changes every size-stable image (TestStableNoisePinned). Latents with a side beyond it
// draw from a grid of the engine's largest latent side instead, so their composition
// differs from smaller sizes.
const StableNoiseGrid = 112

// ValidateNoise checks a noise kind: "" (NoiseTorch), NoiseTorch or NoiseStable.
func ValidateNoise(kind string) error {
	switch kind {
	case "", NoiseTorch, NoiseStable:
		return nil
	}
	return fmt.Errorf("noise %q is unknown: use %q (torch-compatible, the default) or %q (size-stable seeds)", kind, NoiseTorch, NoiseStable)
}

// NoiseName is the stored name of a noise kind: NoiseTorch for "".
func NoiseName(kind string) string {
	if kind == "" {
		return NoiseTorch
	}
	return kind
}

// InitialNoise returns the initial latent noise [channels, gh, gw] (NCHW without batch)
// that seed selects for the given kind of noise (see NoiseTorch and NoiseStable).
func InitialNoise(kind string, seed uint64, channels, gw, gh int) ([]float32, error) {
	if err := ValidateNoise(kind); err != nil {
		return nil, err
	}
	if channels <= 0 || gw <= 0 || gh <= 0 {
		return nil, fmt.Errorf("noise: bad latent shape %d×%d×%d", channels, gh, gw)
	}
	if NoiseName(kind) == NoiseTorch {
		return torchrand.New(seed).Randn(channels * gw * gh), nil
	}
	return stableNoise(seed, channels, gw, gh), nil
}

// stableNoise is NoiseStable: per channel, a grid of g² standard normals (torch randn, one
// call per channel on one generator) summed over the grid cells each target cell covers,
// divided by the square root of their count. The cells' source areas are disjoint, so
// the result is again independent standard normals.
func stableNoise(seed uint64, channels, gw, gh int) []float32 {
	g := StableNoiseGrid
	if gw > g || gh > g {
		g = EngineMaxSidePx / SizeMultiple
	}
	rows, cols := spans(g, gh), spans(g, gw)
	gen := torchrand.New(seed)
	out := make([]float32, channels*gh*gw)
	rowSums := make([]float64, gh*g) // the grid summed over each target row's span
	for c := range channels {
		grid := gen.Randn(g * g)
		clear(rowSums)
		for ty := range gh {
			for y := rows[ty]; y < rows[ty+1]; y++ {
				src := grid[y*g : (y+1)*g]
				dst := rowSums[ty*g : (ty+1)*g]
				for x, v := range src {
					dst[x] += float64(v)
				}
			}
		}
		plane := out[c*gh*gw : (c+1)*gh*gw]
		for ty := range gh {
			nr := rows[ty+1] - rows[ty]
			for tx := range gw {
				var s float64
				for x := cols[tx]; x < cols[tx+1]; x++ {
					s += rowSums[ty*g+x]
				}
				plane[ty*gw+tx] = float32(s / math.Sqrt(float64(nr*(cols[tx+1]-cols[tx]))))
			}
		}
	}
	return out
}

// spans splits 0..g into n consecutive spans: span i is [b[i], b[i+1]) with
// b[i] = floor(i·g/n). Every span is non-empty when n <= g; the boundaries of n are a
// subset of those of k·n, which is why nested sizes agree.
func spans(g, n int) []int {
	b := make([]int, n+1)
	for i := range b {
		b[i] = i * g / n
	}
	return b
}
