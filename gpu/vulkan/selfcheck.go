//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"kleinbild/gpu"
)

var _ gpu.SelfChecker = (*Backend)(nil)

// selfCheckShapes are the products (rows, in, out) of SelfCheck: one row, ragged tiles and k
// steps, and a FLUX-sized block.
var selfCheckShapes = [][3]int{{1, 64, 64}, {77, 3072, 3072}, {130, 1000, 200}, {512, 3072, 9216}}

// selfCheckTol bounds the rel-L2 difference of a matrix-unit kernel from its twin: the same
// float16 operands, float32 sums in another order (tolGemm of gputest at k = 9216 is 2e-5;
// the units' adders may round differently from IEEE's).
const selfCheckTol = 1e-4

// SelfCheck implements gpu.SelfChecker: the fast Linear on the matrix units (linearcm)
// against its twin (linearf16) on selfCheckShapes, then Conv2D and attention
// (selfCheckUnits). Without matrix units it runs nothing.
func (b *Backend) SelfCheck() ([]gpu.KernelCheck, string, error) {
	if b.units == nil {
		return nil, fmt.Sprintf("%s: %s: nothing to compare", b.pd.info.Name, b.unitsNote), nil
	}
	var out []gpu.KernelCheck
	for _, sh := range selfCheckShapes {
		c, err := b.checkKernel("linearcm", "linearf16", sh[0], sh[1], sh[2])
		if err != nil {
			return out, "", err
		}
		out = append(out, c)
	}
	more, err := b.selfCheckUnits()
	out = append(out, more...)
	if err != nil {
		return out, "", err
	}
	return out, fmt.Sprintf("%s: matrix units: %v", b.pd.info.Name, b.units), nil
}

// checkKernel runs the fast Linear y = x·wᵀ with kernel and with twin on random operands
// (bf16 weights, one row of x scaled by 1e4 as FLUX's activations are) and compares them.
func (b *Backend) checkKernel(kernel, twin string, rows, in, out int) (gpu.KernelCheck, error) {
	c := unitCheck{Kernel: kernel, Twin: twin, Shape: fmt.Sprintf("rows=%d in=%d out=%d", rows, in, out), Tol: selfCheckTol}
	r := rand.New(rand.NewPCG(uint64(rows), uint64(in)*uint64(out)))
	x := make([]float32, rows*in)
	for i := range x {
		x[i] = float32(r.NormFloat64())
		if i < in {
			x[i] *= 1e4
		}
	}
	bits := make([]uint16, out*in)
	for i := range bits {
		bits[i] = uint16(math.Float32bits(float32(r.NormFloat64()/math.Sqrt(float64(in)))) >> 16)
	}
	h := gpu.Held{B: b}
	defer h.Free()
	xt := h.Keep(gpu.FromHost(b, x, rows, in))
	w := h.Keep(b.WeightBF16(bits, out, in))
	y := h.Keep(b.Alloc(gpu.F32, rows, out))
	if h.Err != nil {
		return gpu.KernelCheck(c), h.Err
	}
	got, err := b.forcedLinear(kernel, y, xt, w, rows)
	if err != nil {
		return gpu.KernelCheck(c), err
	}
	want, err := b.forcedLinear(twin, y, xt, w, rows)
	if err != nil {
		return gpu.KernelCheck(c), err
	}
	c.compare(got, want)
	return gpu.KernelCheck(c), nil
}

// compare sets c's rel-L2 and largest difference of got from want (NaN for a NaN anywhere).
func (c *unitCheck) compare(got, want []float32) {
	var num, den float64
	for i, v := range want {
		d := float64(got[i]) - float64(v)
		num, den = num+d*d, den+float64(v)*float64(v)
		c.MaxDiff = max(c.MaxDiff, math.Abs(d))
		if d != d {
			c.MaxDiff = math.NaN()
		}
	}
	c.RelL2 = math.Sqrt(num / max(den, 1e-300))
	if c.MaxDiff != c.MaxDiff {
		c.RelL2 = math.NaN()
	}
}

// forcedLinear runs the fast Linear with kernel and reads y, restoring the precision after.
func (b *Backend) forcedLinear(kernel string, y, x, w gpu.Tensor, rows int) ([]float32, error) {
	return b.forced(kernel, y, func() { b.Linear(y, x, w, gpu.Tensor{}, rows) })
}

// forced runs op in the fast precision with kernel forced and reads y, restoring the
// precision after.
func (b *Backend) forced(kernel string, y gpu.Tensor, op func()) ([]float32, error) {
	b.mu.Lock()
	fast := b.fast
	b.fast, b.fastForce = true, kernel
	b.mu.Unlock()
	op()
	got := make([]float32, y.Len())
	err := b.Read(got, y)
	b.mu.Lock()
	b.fast, b.fastForce = fast, ""
	b.mu.Unlock()
	return got, err
}
