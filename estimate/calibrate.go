package estimate

import (
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

	"kleinbild/internal/safefile"
)

// Calibration holds kernel speeds measured on this machine, in GFLOP/s.
type Calibration struct {
	// Backend is the name of the gpu.Backend measured; a calibration of another backend is
	// stale.
	Backend string `json:"backend"`
	// LinearGFLOPS: Backend.Linear with bf16 weights (the transformer and text encoder).
	LinearGFLOPS float64 `json:"linear_gflops"`
	// AttentionGFLOPS: Backend.Attention (scores and weighted sums).
	AttentionGFLOPS float64 `json:"attention_gflops"`
	// ConvGFLOPS: Backend.Conv2D 3×3 (the VAE).
	ConvGFLOPS float64 `json:"conv_gflops"`
	// LoadBytesPerSec is the rate at which models were read when loaded (RecordLoad); 0
	// until a load was measured (LoadRate then assumes DefaultLoadBytesPerSec).
	LoadBytesPerSec float64   `json:"load_bytes_per_s,omitempty"`
	Measured        time.Time `json:"measured"`
}

// Valid reports whether every rate is a positive finite number.
func (c Calibration) Valid() bool {
	ok := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }
	return ok(c.LinearGFLOPS) && ok(c.AttentionGFLOPS) && ok(c.ConvGFLOPS)
}

// calibSizes are the shapes Calibrate measures.
type calibSizes struct {
	rows, in, out int // Linear: x [rows, in] · W[out, in]ᵀ, W in bf16
	seq, heads    int // Attention with head_dim 128
	ch, side      int // Conv2D ch→ch 3×3 on side×side
	minTime       time.Duration
}

// defaultSizes resemble the transformer's projections, a 1024-token attention and a VAE
// convolution; about one second in all on a 2-core machine.
func defaultSizes() calibSizes {
	return calibSizes{rows: 512, in: 3072, out: 3072, seq: 1024, heads: 4, ch: 128, side: 128, minTime: 300 * time.Millisecond}
}

// Calibrate measures the three kernel rates on b (about a second). The machine should be
// otherwise idle; ctx is checked between runs.
func Calibrate(ctx context.Context, b gpu.Backend) (Calibration, error) {
	return calibrate(ctx, b, defaultSizes())
}

func calibrate(ctx context.Context, b gpu.Backend, s calibSizes) (c Calibration, err error) {
	if b == nil {
		return Calibration{}, errors.New("calibrate: no gpu.Backend")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	randF := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = rng.Float32()*2 - 1
		}
		return v
	}
	randBF16 := func(n int) []uint16 {
		v := make([]uint16, n)
		for i := range v {
			v[i] = uint16(math.Float32bits(rng.Float32()*0.1-0.05) >> 16)
		}
		return v
	}
	// Every tensor made here is freed on return; a failed allocation ends the calibration.
	h := gpu.Held{B: b}
	defer h.Free()
	input := func(n int) gpu.Tensor { return h.Keep(gpu.FromHost(b, randF(n))) }
	output := func(n int) gpu.Tensor { return h.Keep(b.Alloc(gpu.F32, n)) }
	c = Calibration{Backend: b.Name(), Measured: time.Now().UTC()}

	x, y := input(s.rows*s.in), output(s.rows*s.out)
	wt := h.Keep(b.WeightBF16(randBF16(s.out*s.in), s.out, s.in))
	if h.Err != nil {
		return Calibration{}, fmt.Errorf("calibrate: %w", h.Err)
	}
	linear := 2 * float64(s.rows) * float64(s.in) * float64(s.out)
	if c.LinearGFLOPS, err = rate(ctx, b, s.minTime, linear, func() { b.Linear(y, x, wt, gpu.Tensor{}, s.rows) }); err != nil {
		return Calibration{}, err
	}

	const hd = 128
	n := s.seq * s.heads * hd
	q, k, v, o := input(n), input(n), input(n), output(n)
	if h.Err != nil {
		return Calibration{}, fmt.Errorf("calibrate: %w", h.Err)
	}
	p := gpu.AttnParams{SeqQ: s.seq, SeqK: s.seq, Heads: s.heads, KVHeads: s.heads, HeadDim: hd}
	attn := 4 * float64(s.seq) * float64(s.seq) * float64(hd) * float64(s.heads)
	if c.AttentionGFLOPS, err = rate(ctx, b, s.minTime, attn, func() { b.Attention(o, q, k, v, p) }); err != nil {
		return Calibration{}, err
	}

	in, out := input(s.ch*s.side*s.side), output(s.ch*s.side*s.side)
	kern := h.Keep(b.WeightBF16(randBF16(s.ch*s.ch*9), s.ch, s.ch*9))
	if h.Err != nil {
		return Calibration{}, fmt.Errorf("calibrate: %w", h.Err)
	}
	cp := gpu.ConvParams{InC: s.ch, InH: s.side, InW: s.side, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
	conv := 2 * float64(s.ch) * float64(s.ch) * 9 * float64(s.side) * float64(s.side)
	if c.ConvGFLOPS, err = rate(ctx, b, s.minTime, conv, func() { b.Conv2D(out, in, kern, gpu.Tensor{}, cp) }); err != nil {
		return Calibration{}, err
	}
	return c, nil
}

// rate runs op once to warm up, then until minTime has passed (at least twice), waiting for
// the backend after each run, and returns GFLOP/s.
func rate(ctx context.Context, b gpu.Backend, minTime time.Duration, flops float64, op func()) (float64, error) {
	run := func() error {
		op()
		if err := b.Sync(); err != nil {
			return fmt.Errorf("calibrate: %w", err)
		}
		return nil
	}
	if err := run(); err != nil {
		return 0, err
	}
	start := time.Now()
	runs := 0
	for runs < 2 || time.Since(start) < minTime {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("calibrate: %w", err)
		}
		if err := run(); err != nil {
			return 0, err
		}
		runs++
	}
	return flops * float64(runs) / time.Since(start).Seconds() / 1e9, nil
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

// Save writes the calibration as JSON (through a temporary file, then a rename).
func (c Calibration) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save calibration: %w", err)
	}
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".calibration-*.json")
	if err != nil {
		return fmt.Errorf("save calibration: %w", err)
	}
	_, werr := tmp.Write(append(raw, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save calibration: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save calibration: %w", err)
	}
	return nil
}

// LoadOrCalibrate returns the calibration stored at path when it was measured for backend
// b, else measures one (Calibrate) and stores it. measured tells which happened.
func LoadOrCalibrate(ctx context.Context, b gpu.Backend, path string) (c Calibration, measured bool, err error) {
	return loadOrCalibrate(ctx, b, path, Calibrate)
}

func loadOrCalibrate(ctx context.Context, b gpu.Backend, path string, measure func(context.Context, gpu.Backend) (Calibration, error)) (Calibration, bool, error) {
	if b == nil {
		return Calibration{}, false, errors.New("calibrate: no gpu.Backend")
	}
	c, err := LoadCalibration(path)
	if err == nil && c.Backend == b.Name() {
		return c, false, nil
	}
	if c, err = measure(ctx, b); err != nil {
		return Calibration{}, false, err
	}
	return c, true, c.Save(path)
}
