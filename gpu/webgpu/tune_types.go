package webgpu

import (
	"context"
	"time"
)

// TuneOptions configure Tune.
type TuneOptions struct {
	// Workloads per family (nil: ScaledModelWorkloads at the largest scale the budget allows
	// on this device, 1 on a fast one); a family without one is not tuned.
	Workloads map[string]Workload
	// Force tunes every family again, ignoring the cache.
	Force bool
	// CacheDir is the cache folder ("": the backend's Options.CacheDir, else
	// DefaultTuneDir); NoSave leaves the cache file alone.
	CacheDir string
	NoSave   bool
	// Budget bounds the whole tuning (0: a minute). Each candidate gets an equal share, at
	// least one timed run; candidates left when the budget is spent are not timed.
	Budget time.Duration
	// Reps is the most timed runs per candidate (0: 5); slow devices get fewer, by budget.
	Reps int
	// Progress, if set, is called before each candidate is timed.
	Progress func(TuneProgress)
	// CPU, if set, measures the CPU backend on the linear workload (device versus CPU, see
	// backends): it returns the rate in GFLOP/s and the backend's name.
	CPU func(ctx context.Context, w Workload) (gflops float64, name string, err error)
	// Shapes are the Linear shapes tuned one by one (tune_shape.go). nil: Klein4BDims'
	// shapes at Sizes, when tuning times the model's real shapes (Workloads nil, a device
	// fast enough for scale 1) or Sizes is set; none with Workloads set.
	Shapes []LinearShape
	// Sizes are the square image sides whose shapes are tuned (nil: DefaultShapeSizes).
	Sizes []int
	// ShapeBudget caps each shape's tuning (0: an equal share of what is left of Budget).
	ShapeBudget time.Duration
}

// TuneProgress is one step of tuning.
type TuneProgress struct {
	Family, Variant string
	Done, Total     int // candidates timed so far, and in all
}

// TuneTolerance is the largest rel-L2 difference between a tuned variant's output and the
// reference variant's on the tuning data (both are float32 with float32 accumulation: they
// differ by summation order only, about 1e-6 at the model's reduction lengths).
const TuneTolerance = 1e-4

// TuneResult is what Tune did.
type TuneResult struct {
	Adapter   string // adapter name
	Families  []FamilyTuning
	GPUGFLOPS float64 // the device's rate on the linear workload
	CPUGFLOPS float64 // the CPU backend's on the same workload (0: not measured)
	CPUName   string
	Shape     string // the linear workload
	FromCache bool   // nothing was timed: the cache held every answer
	// Scale is the divisor of the model's shapes tuning used (ScaledModelWorkloads): 1 on
	// devices fast enough to time the real shapes within the budget, more on slow ones.
	Scale   int
	Elapsed time.Duration
	// Shapes are the per-shape Linear outcomes, in tuning order (none: not tuned per shape).
	Shapes []ShapeTuning
}

// ShapeTuning is one Linear shape's outcome.
type ShapeTuning struct {
	Shape   LinearShape
	Bucket  int                // the record's key: rows up to Bucket (shapeBucket)
	Variant string             // "" when not timed (Note says why)
	Cached  bool               // taken from the cache
	Seconds map[string]float64 // variants timed: best run
	RelL2   float64            // chosen against the reference
	GFLOPS  float64            // the chosen variant's rate (0: not timed)
	Note    string
}

// FamilyTuning is one family's outcome.
type FamilyTuning struct {
	Family, Variant string
	Forced          bool               // forced: not tuned
	Cached          bool               // taken from the cache
	Seconds         map[string]float64 // variants timed: best run
	RelL2           float64            // chosen against reference (0 when it is the reference)
	Note            string             // why the reference was kept, or a skipped candidate
	Shape           string             // the workload timed ("rows×in→out", ...)
	GFLOPS          float64            // the chosen variant's rate on Shape (0: not timed)
}

func (r *TuneResult) family(f string) *FamilyTuning {
	for i := range r.Families {
		if r.Families[i].Family == f {
			return &r.Families[i]
		}
	}
	r.Families = append(r.Families, FamilyTuning{Family: f})
	return &r.Families[len(r.Families)-1]
}
