package inpaint

import (
	"fmt"
	"math"
)

// StartStep is get_timesteps (P:696-706): of a schedule of n steps, strength s skips the
// first t_start = int(max(n − min(n·s, n), 0)) (float64 arithmetic, truncation) and runs
// the remaining n − t_start from sigma[t_start]. Strength is thereby quantised to the
// schedule: any s > (n−1)/n starts from pure noise like s = 1, and float rounding matters
// (25 × 0.56 = 14.000000000000002 runs 15 steps). Strength must lie in (0, 1] (the
// pipeline accepts 0 but then has no step to run); n at least 1.
func StartStep(n int, strength float64) (int, error) {
	if n < 1 {
		return 0, fmt.Errorf("%d denoising steps: at least 1 is needed", n)
	}
	if !(strength > 0 && strength <= 1) { // also refuses NaN
		return 0, fmt.Errorf("strength %v is out of range: use a number in (0, 1]", strength)
	}
	init := math.Min(float64(float64(n)*strength), float64(n))
	tStart := int(math.Max(float64(n)-init, 0))
	if n-tStart < 1 {
		return 0, fmt.Errorf("%w (%d steps × strength %v)", errNoSteps, n, strength)
	}
	return tStart, nil
}
