package estimate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"kleinbild/gpu"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// Calibration holds kernel speeds measured on this machine, in GFLOP/s, and what does not
// scale with FLOPs, per unit.
type Calibration struct {
	// Backend is the name of the gpu.Backend measured; a calibration of another backend is
	// stale.
	Backend string `json:"backend"`
	// LinearGFLOPS: Backend.Linear with bf16 weights (the transformer and text encoder).
	LinearGFLOPS float64 `json:"linear_gflops"`
	// AttentionGFLOPS: Backend.Attention's products (scores and weighted sums).
	AttentionGFLOPS float64 `json:"attention_gflops"`
	// ConvGFLOPS: Backend.Conv2D 3×3 (the VAE).
	ConvGFLOPS float64 `json:"conv_gflops"`
	// LoadBytesPerSec is the rate at which models were read when loaded (RecordLoad); 0
	// until a load was measured (LoadRate then assumes DefaultLoadBytesPerSec).
	LoadBytesPerSec float64 `json:"load_bytes_per_s,omitempty"`
	// AttentionScoresPerSec prices an attention score beyond its products (the softmax),
	// which dominates at small head sizes; ConvColumnsPerSec a convolution's columns
	// (input channels × kernel taps × pixels, gathered and packed), which dominate at few
	// output channels; ValuesPerSec an activation value through a normalization and an
	// activation function. All three are 0 in files written before they were measured
	// (LoadOrCalibrate then measures again).
	AttentionScoresPerSec float64 `json:"attention_scores_per_s,omitempty"`
	ConvColumnsPerSec     float64 `json:"conv_columns_per_s,omitempty"`
	ValuesPerSec          float64 `json:"values_per_s,omitempty"`
	// Runs holds, per model (Model.Key), what measured generations taught (WithRun).
	// Measuring the rates again starts without them.
	Runs     map[string]RunFactors `json:"runs,omitempty"`
	Measured time.Time             `json:"measured"`
}

// Valid reports whether every FLOP rate is a positive finite number.
func (c Calibration) Valid() bool {
	return positive(c.LinearGFLOPS) && positive(c.AttentionGFLOPS) && positive(c.ConvGFLOPS)
}

// complete reports whether c holds every rate Calibrate measures.
func (c Calibration) complete() bool {
	return c.Valid() && positive(c.AttentionScoresPerSec) && positive(c.ConvColumnsPerSec) && positive(c.ValuesPerSec)
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// freeRate is the per-unit rate of a cost that the device showed no measurable sign of.
const freeRate = 1e30

// calibSizes are the shapes Calibrate measures.
type calibSizes struct {
	rows, in, out int // Linear: x [rows, in] · W[out, in]ᵀ, W in bf16
	seq, heads    int // Attention with head_dim 128 and 32
	ch, side      int // Conv2D ch→ch 3×3 on side×side
	thinCh        int // and thinCh→thinCh (0: ch/8) on 4·side × 4·side: a working set as
	// large as a VAE's at full resolution, past the caches
	minTime time.Duration
}

// defaultSizes resemble the transformer's projections, a 1024-token attention and a VAE
// convolution, each also in a thin form (small heads, few channels) to separate the costs
// that do not scale with FLOPs; about 2 s in all on a 2-core machine.
func defaultSizes() calibSizes {
	return calibSizes{rows: 512, in: 3072, out: 3072, seq: 1024, heads: 4, ch: 128, side: 128, thinCh: 16, minTime: 250 * time.Millisecond}
}

// Calibrate measures the kernel rates on b (about 2 s). The machine should be otherwise
// idle; each rate is the fastest of several runs, so brief contention is ignored, but a
// machine busy throughout measures slow (runs recorded by WithRun correct that). ctx is
// checked between runs.
func Calibrate(ctx context.Context, b gpu.Backend) (Calibration, error) {
	return calibrate(ctx, b, defaultSizes())
}

func calibrate(ctx context.Context, b gpu.Backend, s calibSizes) (Calibration, error) {
	if b == nil {
		return Calibration{}, errors.New("calibrate: no gpu.Backend")
	}
	if s.thinCh <= 0 {
		s.thinCh = max(s.ch/8, 1)
	}
	// Every tensor made here is freed on return; a failed allocation ends the calibration.
	r := &calibRun{ctx: ctx, h: &gpu.Held{B: b}, rng: rand.New(rand.NewPCG(1, 2)), minTime: s.minTime}
	defer r.h.Free()
	c := Calibration{Backend: b.Name(), Measured: time.Now().UTC()}

	x, y, wt := r.input(s.rows*s.in), r.output(s.rows*s.out), r.weight(s.out, s.in)
	t, err := r.seconds(func() { b.Linear(y, x, wt, gpu.Tensor{}, s.rows) })
	if err != nil {
		return Calibration{}, err
	}
	c.LinearGFLOPS = 2 * float64(s.rows) * float64(s.in) * float64(s.out) / t / 1e9

	// Attention at head sizes 128 and 32: the same scores, a quarter of the products.
	var at [2]float64
	for i, hd := range []int{128, 32} {
		n := s.seq * s.heads * hd
		q, k, v, o := r.input(n), r.input(n), r.input(n), r.output(n)
		p := gpu.AttnParams{SeqQ: s.seq, SeqK: s.seq, Heads: s.heads, KVHeads: s.heads, HeadDim: hd}
		if at[i], err = r.seconds(func() { b.Attention(o, q, k, v, p) }); err != nil {
			return Calibration{}, err
		}
	}
	scores := float64(s.seq) * float64(s.seq) * float64(s.heads)
	c.AttentionGFLOPS, c.AttentionScoresPerSec = split(at[0], at[1], scores*4*128, scores, scores*4*32, scores)

	// Convolutions: ch channels on side², thinCh on (4·side)².
	var ct [2]float64
	thinSide := 4 * s.side
	shapes := [2][2]int{{s.ch, s.side}, {s.thinCh, thinSide}}
	for i, sh := range shapes {
		ch, side := sh[0], sh[1]
		in, out, kern := r.input(ch*side*side), r.output(ch*side*side), r.weight(ch, ch*9)
		cp := gpu.ConvParams{InC: ch, InH: side, InW: side, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
		if ct[i], err = r.seconds(func() { b.Conv2D(out, in, kern, gpu.Tensor{}, cp) }); err != nil {
			return Calibration{}, err
		}
	}
	cols := func(i int) float64 { return float64(shapes[i][0]*9) * float64(shapes[i][1]*shapes[i][1]) }
	c.ConvGFLOPS, c.ConvColumnsPerSec = split(ct[0], ct[1], 2*float64(s.ch)*cols(0), cols(0), 2*float64(s.thinCh)*cols(1), cols(1))

	// A GroupNorm and a SiLU over the thin convolution's input.
	n := s.thinCh * thinSide * thinSide
	in, out, gamma, beta := r.input(n), r.output(n), r.input(s.thinCh), r.input(s.thinCh)
	if t, err = r.seconds(func() {
		b.GroupNorm(out, in, gamma, beta, s.thinCh, thinSide*thinSide, 1, 1e-6)
		b.SiLU(out, out)
	}); err != nil {
		return Calibration{}, err
	}
	c.ValuesPerSec = float64(n) / t
	return c, nil
}

// split solves t1 = a1/(G·1e9) + b1/R and t2 = a2/(G·1e9) + b2/R (two measurements of one
// kernel: a FLOPs, b units of the other cost) for the FLOP rate G and the unit rate R.
// When the second measurement is not slower than the FLOPs alone explain, the units cost
// nothing measurable: G comes from the first and R is freeRate.
func split(t1, t2, a1, b1, a2, b2 float64) (gflops, perSec float64) {
	det := a1*b2 - a2*b1
	perFLOP := (t1*b2 - t2*b1) / det
	perUnit := (a1*t2 - a2*t1) / det
	if det == 0 || !positive(perFLOP) || !positive(perUnit) {
		return a1 / t1 / 1e9, freeRate
	}
	return 1 / perFLOP / 1e9, 1 / perUnit
}

// calibRun is one calibration's backend, tensors (freed by the caller) and random inputs.
type calibRun struct {
	ctx     context.Context
	h       *gpu.Held
	rng     *rand.Rand
	minTime time.Duration
}

// input is an F32 tensor of n values in [-1, 1).
func (r *calibRun) input(n int) gpu.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.rng.Float32()*2 - 1
	}
	return r.h.Keep(gpu.FromHost(r.h.B, v))
}

// output is an uninitialised F32 tensor of n values.
func (r *calibRun) output(n int) gpu.Tensor { return r.h.Keep(r.h.B.Alloc(gpu.F32, n)) }

// weight is a bf16 [out, in] matrix of small values.
func (r *calibRun) weight(out, in int) gpu.Tensor {
	v := make([]uint16, out*in)
	for i := range v {
		v[i] = uint16(math.Float32bits(r.rng.Float32()*0.1-0.05) >> 16)
	}
	return r.h.Keep(r.h.B.WeightBF16(v, out, in))
}

// seconds runs op once to warm up, then until minTime has passed (at least three times),
// waiting for the backend after each run, and returns the time of the fastest run: the
// least disturbed by other work. A failed allocation before it is its error.
func (r *calibRun) seconds(op func()) (float64, error) {
	if r.h.Err != nil {
		return 0, fmt.Errorf("calibrate: %w", r.h.Err)
	}
	b := r.h.B
	run := func() (time.Duration, error) {
		t := time.Now()
		op()
		if err := b.Sync(); err != nil {
			return 0, fmt.Errorf("calibrate: %w", err)
		}
		return time.Since(t), nil
	}
	if _, err := run(); err != nil {
		return 0, err
	}
	start := time.Now()
	best := time.Duration(math.MaxInt64)
	for runs := 0; runs < 3 || time.Since(start) < r.minTime; runs++ {
		if err := r.ctx.Err(); err != nil {
			return 0, fmt.Errorf("calibrate: %w", err)
		}
		d, err := run()
		if err != nil {
			return 0, err
		}
		best = min(best, max(d, time.Nanosecond))
	}
	return best.Seconds(), nil
}

// DefaultCalibrationPath is where the calibration is kept: kleinbild/calibration.json in the
// user's configuration folder.
func DefaultCalibrationPath() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("calibration file: %w", err)
	}
	return filepath.Join(d, "kleinbild", "calibration.json"), nil
}

// LoadCalibration reads a calibration file. A missing file gives an error wrapping
// fs.ErrNotExist; a file with invalid rates is an error too.
func LoadCalibration(path string) (Calibration, error) {
	raw, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if err != nil {
		return Calibration{}, fmt.Errorf("read calibration: %w", err)
	}
	var c Calibration
	if err := json.Unmarshal(raw, &c); err != nil {
		return Calibration{}, fmt.Errorf("calibration %s: %w", path, err)
	}
	if !c.Valid() {
		return Calibration{}, fmt.Errorf("calibration %s holds invalid rates", path)
	}
	return c, nil
}

// Save writes the calibration as JSON, atomically (atomicfile.WriteAtomic: synced, then
// renamed into place, keeping the replaced file's permissions).
func (c Calibration) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save calibration: %w", err)
	}
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	}); err != nil {
		return fmt.Errorf("save calibration: %w", err)
	}
	return nil
}

// LoadOrCalibrate returns the calibration stored at path when it was measured for backend
// b (and holds every rate Calibrate measures today), else measures one (Calibrate) and
// stores it. measured tells which happened.
func LoadOrCalibrate(ctx context.Context, b gpu.Backend, path string) (c Calibration, measured bool, err error) {
	return loadOrCalibrate(ctx, b, path, Calibrate)
}

func loadOrCalibrate(ctx context.Context, b gpu.Backend, path string, measure func(context.Context, gpu.Backend) (Calibration, error)) (Calibration, bool, error) {
	if b == nil {
		return Calibration{}, false, errors.New("calibrate: no gpu.Backend")
	}
	c, err := LoadCalibration(path)
	if err == nil && c.Backend == b.Name() && c.complete() {
		return c, false, nil
	}
	if c, err = measure(ctx, b); err != nil {
		return Calibration{}, false, err
	}
	return c, true, c.Save(path)
}
