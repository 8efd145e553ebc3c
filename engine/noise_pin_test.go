package engine

import (
	"math"
	"testing"
)

// TestStableNoisePinned pins size-stable noise: the grid (StableNoiseGrid, 112 cells a
// side) and the draw order decide every size-stable image, so a change to either (such as
// deriving the grid from the app's largest size again) would silently change every image
// ever made with noise=stable. The values were computed before the grid became a constant
// of its own; the tolerance (1e-6 absolute) allows only a last-bit difference of the
// platform's math library.
func TestStableNoisePinned(t *testing.T) {
	if StableNoiseGrid != 112 {
		t.Fatalf("StableNoiseGrid = %d, want 112", StableNoiseGrid)
	}
	for _, c := range []struct {
		seed          uint64
		channels      int
		gw, gh        int
		sum, sumSq    float64
		first, middle float32
		last          float32
	}{
		{42, 128, 16, 16, -133.07503000492352, 32638.608366894096, 0.57860947, 2.5227635, -0.79806966},
		{7, 128, 40, 24, -227.79392795626927, 122499.86984141222, -0.5123442, -1.2200911, -0.27897537},
		{3, 2, 120, 8, 72.13502045950736, 1928.3766738686863, 0.73217022, 0.49165466, -0.99262726}, // beyond the grid: drawn from the engine-wide grid
		{1, 4, 112, 112, 63.711982995176186, 50559.89029327109, -1.5255959, 0.31198895, 1.829049},
	} {
		n := mustNoise(t, NoiseStable, c.seed, c.channels, c.gw, c.gh)
		var sum, sumSq float64
		for _, v := range n {
			sum += float64(v)
			sumSq += float64(v) * float64(v)
		}
		got := []float64{sum, sumSq, float64(n[0]), float64(n[len(n)/2]), float64(n[len(n)-1])}
		want := []float64{c.sum, c.sumSq, float64(c.first), float64(c.middle), float64(c.last)}
		for i := range got {
			if d := math.Abs(got[i] - want[i]); d > 1e-6*max(1, math.Abs(want[i])) {
				t.Errorf("seed %d, %d×%d×%d: figure %d is %v, want %v (sum, sum of squares, first, middle, last)", c.seed, c.channels, c.gh, c.gw, i, got[i], want[i])
			}
		}
	}
}
