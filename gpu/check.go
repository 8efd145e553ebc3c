package gpu

import (
	"fmt"
	"math"
)

// Argument checks shared by every backend: each returns nil when the op's tensors hold the
// elements its dimensions address, else an error naming the op and the problem. Backends call
// them before enqueueing, so that every backend rejects the same calls with the same words.

func errShape(op string, n int, shape []int) error {
	return fmt.Errorf("gpu: %s: %d values do not fill shape %v", op, n, shape)
}

// maxElems bounds dimension products so that int arithmetic cannot overflow.
const maxElems = math.MaxInt32 * 64

func dimsOK(dims ...int) bool {
	p := 1
	for _, d := range dims {
		if d < 0 || d > maxElems {
			return false
		}
		if d != 0 && p > maxElems/d {
			return false
		}
		p *= d
	}
	return true
}

// need checks that t is a tensor of dtype F32 (or, with weight, F32 or BF16) holding at least n
// elements.
func need(op, name string, t Tensor, n int, weight bool) error {
	if t.IsZero() {
		return fmt.Errorf("gpu: %s: %s is missing", op, name)
	}
	if t.dtype != F32 && !(weight && t.dtype == BF16) {
		return fmt.Errorf("gpu: %s: %s is %s, want f32", op, name, t.dtype)
	}
	if t.n < n {
		return fmt.Errorf("gpu: %s: %s has %d values, needs %d", op, name, t.n, n)
	}
	return nil
}

// needMatrix is need for Linear's weight [out, in], which may also be quantized: then in
// is a whole number of blocks and the view starts at a block boundary.
func needMatrix(op string, w Tensor, out, in int) error {
	if !w.dtype.Quantized() {
		return need(op, "weight", w, out*in, true)
	}
	be, _ := w.dtype.Block()
	if in%be != 0 || w.off%be != 0 {
		return fmt.Errorf("gpu: %s: %s weight %v: rows of %d values from element %d are not whole %d-value blocks", op, w.dtype, w, in, w.off, be)
	}
	if w.n < out*in {
		return fmt.Errorf("gpu: %s: weight has %d values, needs %d", op, w.n, out*in)
	}
	return nil
}

// CheckQuant validates the arguments of WeightQuant: a quantized dtype, a shape whose last
// dimension is a whole number of blocks, and raw exactly the packed size. It returns the
// number of elements.
func CheckQuant(dtype DType, raw []byte, shape []int) (int, error) {
	if !dtype.Quantized() {
		return 0, fmt.Errorf("gpu: WeightQuant: %v is not a quantized type", dtype)
	}
	if len(shape) == 0 || !dimsOK(shape...) {
		return 0, fmt.Errorf("gpu: WeightQuant: invalid shape %v", shape)
	}
	n := 1
	for _, s := range shape {
		n *= s
	}
	be, _ := dtype.Block()
	if last := shape[len(shape)-1]; last%be != 0 {
		return 0, fmt.Errorf("gpu: WeightQuant: %v rows of %d values are not whole %d-value blocks", dtype, last, be)
	}
	if want := dtype.PackedBytes(n); int64(len(raw)) != want {
		return 0, fmt.Errorf("gpu: WeightQuant: %v %v needs %d bytes, got %d", dtype, shape, want, len(raw))
	}
	return n, nil
}

// optional is need for an operand that may be the zero Tensor.
func optional(op, name string, t Tensor, n int) error {
	if t.IsZero() {
		return nil
	}
	return need(op, name, t, n, false)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func errDims(op string, dims ...int) error {
	return fmt.Errorf("gpu: %s: invalid dimensions %v", op, dims)
}

// MatrixDims returns the (out, in) of a weight tensor [out, in].
func MatrixDims(w Tensor) (out, in int, ok bool) {
	s := w.Shape()
	if len(s) != 2 {
		return 0, 0, false
	}
	return s[0], s[1], true
}

// CheckLinear validates a Linear call.
func CheckLinear(y, x, w, bias Tensor, rows int) error {
	const op = "Linear"
	out, in, ok := MatrixDims(w)
	if !ok {
		return fmt.Errorf("gpu: %s: weight %v is not a matrix [out, in]", op, w)
	}
	if !dimsOK(rows, out) || !dimsOK(rows, in) {
		return errDims(op, rows, out, in)
	}
	return firstErr(
		needMatrix(op, w, out, in),
		need(op, "x", x, rows*in, false),
		need(op, "y", y, rows*out, false),
		optional(op, "bias", bias, out))
}

// CheckAttention validates an Attention call with p already WithDefaults.
func CheckAttention(out, q, k, v Tensor, p AttnParams) error {
	const op = "Attention"
	if p.SeqQ < 0 || p.SeqK < 0 || p.Heads <= 0 || p.KVHeads <= 0 || p.HeadDim <= 0 ||
		p.Heads%p.KVHeads != 0 || p.KeyValid < 0 || (p.Causal && p.SeqQ != p.SeqK) ||
		!dimsOK(p.SeqQ, p.QStride) || !dimsOK(p.SeqK, p.KStride) || !dimsOK(p.SeqK, p.VStride) || !dimsOK(p.SeqQ, p.OutStride) ||
		p.QStride < p.Heads*p.HeadDim || p.OutStride < p.Heads*p.HeadDim ||
		p.KStride < p.KVHeads*p.HeadDim || p.VStride < p.KVHeads*p.HeadDim ||
		math.IsNaN(float64(p.Scale)) || math.IsInf(float64(p.Scale), 0) {
		return fmt.Errorf("gpu: %s: invalid parameters %+v", op, p)
	}
	if p.SeqQ == 0 {
		return nil
	}
	span := func(seq, stride, width int) int {
		if seq == 0 {
			return 0
		}
		return (seq-1)*stride + width
	}
	return firstErr(
		need(op, "q", q, span(p.SeqQ, p.QStride, p.Heads*p.HeadDim), false),
		need(op, "k", k, span(p.SeqK, p.KStride, p.KVHeads*p.HeadDim), false),
		need(op, "v", v, span(p.SeqK, p.VStride, p.KVHeads*p.HeadDim), false),
		need(op, "out", out, span(p.SeqQ, p.OutStride, p.Heads*p.HeadDim), false))
}

// CheckRows validates a row-wise op on y and x of rows×dim values with a per-column vector
// (weight, scale, shift: [dim] or zero).
func CheckRows(op string, y, x Tensor, rows, dim int, vecs ...Tensor) error {
	if !dimsOK(rows, dim) {
		return errDims(op, rows, dim)
	}
	if err := firstErr(need(op, "x", x, rows*dim, false), need(op, "y", y, rows*dim, false)); err != nil {
		return err
	}
	for _, v := range vecs {
		if err := optional(op, "vector", v, dim); err != nil {
			return err
		}
	}
	return nil
}

// CheckHeadRMSNorm validates a HeadRMSNorm call.
func CheckHeadRMSNorm(x, weight Tensor, rows, stride, heads, headDim int) error {
	const op = "HeadRMSNorm"
	if !dimsOK(rows, stride) || heads < 0 || headDim <= 0 || heads*headDim > stride {
		return errDims(op, rows, stride, heads, headDim)
	}
	if rows == 0 || heads == 0 {
		return nil
	}
	return firstErr(need(op, "x", x, (rows-1)*stride+heads*headDim, false), optional(op, "weight", weight, headDim))
}

// CheckGroupNorm validates a GroupNorm call.
func CheckGroupNorm(y, x, gamma, beta Tensor, channels, hw, groups int) error {
	const op = "GroupNorm"
	if groups <= 0 || channels%groups != 0 || !dimsOK(channels, hw) {
		return errDims(op, channels, hw, groups)
	}
	return firstErr(need(op, "x", x, channels*hw, false), need(op, "y", y, channels*hw, false),
		optional(op, "gamma", gamma, channels), optional(op, "beta", beta, channels))
}

// CheckSame validates an element-wise op whose operands all have the length of the first.
func CheckSame(op string, ts ...Tensor) error {
	if len(ts) == 0 {
		return nil
	}
	for i, t := range ts {
		if err := need(op, fmt.Sprintf("operand %d", i), t, 0, false); err != nil {
			return err
		}
		if t.n != ts[0].n {
			return fmt.Errorf("gpu: %s: operand %d has %d values, operand 0 has %d", op, i, t.n, ts[0].n)
		}
	}
	return nil
}

// CheckSwiGLU validates a SwiGLU call with strides already defaulted.
func CheckSwiGLU(y, x Tensor, rows, hidden, xStride, yStride int) error {
	const op = "SwiGLU"
	if !dimsOK(rows, xStride) || !dimsOK(rows, yStride) || hidden < 0 || xStride < 2*hidden || yStride < hidden {
		return errDims(op, rows, hidden, xStride, yStride)
	}
	if rows == 0 || hidden == 0 {
		return nil
	}
	return firstErr(need(op, "x", x, (rows-1)*xStride+2*hidden, false), need(op, "y", y, (rows-1)*yStride+hidden, false))
}

// CheckGatedAdd validates a GatedAdd call.
func CheckGatedAdd(x, y, gate Tensor, rows, dim int) error {
	const op = "GatedAdd"
	if !dimsOK(rows, dim) {
		return errDims(op, rows, dim)
	}
	return firstErr(need(op, "x", x, rows*dim, false), need(op, "y", y, rows*dim, false), need(op, "gate", gate, dim, false))
}

// CheckCopy validates a Copy call.
func CheckCopy(dst, src Tensor) error {
	if dst.IsZero() || src.IsZero() {
		return fmt.Errorf("gpu: Copy: missing operand")
	}
	if dst.dtype != src.dtype || dst.n != src.n || src.dtype.Quantized() {
		return fmt.Errorf("gpu: Copy: %v into %v", src, dst)
	}
	return nil
}

// CheckRoPE validates a RoPE call.
func CheckRoPE(x, cos, sin Tensor, seq, heads, headDim, stride int) error {
	const op = "RoPE"
	if !dimsOK(seq, stride) || !dimsOK(seq, headDim) || heads < 0 || headDim <= 0 || headDim%2 != 0 || heads*headDim > stride {
		return errDims(op, seq, heads, headDim, stride)
	}
	if seq == 0 || heads == 0 {
		return nil
	}
	return firstErr(need(op, "x", x, (seq-1)*stride+heads*headDim, false),
		need(op, "cos", cos, seq*headDim, false), need(op, "sin", sin, seq*headDim, false))
}

// CheckConv2D validates a Conv2D call with p already WithDefaults.
func CheckConv2D(out, in, w, bias Tensor, p ConvParams) error {
	const op = "Conv2D"
	outC, k, ok := MatrixDims(w)
	if !ok || k != p.KernelSize() {
		return fmt.Errorf("gpu: %s: kernel %v is not [OutC, %d·%d·%d]", op, w, p.InC, p.KH, p.KW)
	}
	oh, ow := p.OutSize()
	if p.InC <= 0 || p.InH <= 0 || p.InW <= 0 || p.KH <= 0 || p.KW <= 0 || p.Stride <= 0 ||
		p.PadTop < 0 || p.PadLeft < 0 || p.PadBottom < 0 || p.PadRight < 0 || oh <= 0 || ow <= 0 ||
		!dimsOK(p.InC, p.InH, p.InW) || !dimsOK(outC, oh, ow) || !dimsOK(k, oh, ow) {
		return fmt.Errorf("gpu: %s: invalid parameters %+v", op, p)
	}
	return firstErr(need(op, "kernel", w, outC*k, true), need(op, "in", in, p.InC*p.InH*p.InW, false),
		need(op, "out", out, outC*oh*ow, false), optional(op, "bias", bias, outC))
}

// CheckImage validates an op from x [c, h, w] (inC·h·w values) to y of outN values.
func CheckImage(op string, y, x Tensor, inN, outN int, dims ...int) error {
	if !dimsOK(dims...) {
		return errDims(op, dims...)
	}
	for _, d := range dims {
		if d <= 0 {
			return errDims(op, dims...)
		}
	}
	return firstErr(need(op, "x", x, inN, false), need(op, "y", y, outN, false))
}

// CheckPatchify validates Patchify (inverse false) or Unpatchify (inverse true).
func CheckPatchify(y, x Tensor, c, h, w int, inverse bool) error {
	if inverse {
		if c%4 != 0 {
			return errDims("Unpatchify", c, h, w)
		}
		return CheckImage("Unpatchify", y, x, c*h*w, c*h*w, c, h, w)
	}
	if h%2 != 0 || w%2 != 0 {
		return errDims("Patchify", c, h, w)
	}
	return CheckImage("Patchify", y, x, c*h*w, c*h*w, c, h, w)
}

// CheckBatchNorm validates a BatchNorm call.
func CheckBatchNorm(y, x, mean, std Tensor, channels, hw int) error {
	const op = "BatchNorm"
	if !dimsOK(channels, hw) {
		return errDims(op, channels, hw)
	}
	return firstErr(need(op, "x", x, channels*hw, false), need(op, "y", y, channels*hw, false),
		need(op, "mean", mean, channels, false), need(op, "std", std, channels, false))
}
