//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import "kleinbild/gpu"

// The modes of layout.comp.
const (
	lyTranspose = iota
	lyPatchify
	lyUnpatchify
	lyUpsample
	lySwiGLU
	lyBatchNorm
	lyRoPE
)

// layout queues n invocations of layout.comp mode; ySpan, xSpan, uvSpan are the elements the
// operands cover.
func (b *Backend) layout(op string, mode int, y, x, u, v gpu.Tensor, n, ySpan, xSpan, uvSpan int, a, bb, cc, e int) {
	if n == 0 {
		return
	}
	c := b.newCall(op)
	yb := c.out(y, ySpan)
	xb := c.in(x, xSpan)
	ub := c.in(u, uvSpan)
	vb := c.in(v, uvSpan)
	gx, gy := b.grid((n + 255) / 256)
	c.run("layout", []uint32{uint32(n), uint32(mode), yb, xb, ub, vb, uint32(a), uint32(bb), uint32(cc), uint32(e)}, gx, gy, 1)
}

// Transpose writes y [cols, rows] = xᵀ.
func (b *Backend) Transpose(y, x gpu.Tensor, rows, cols int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckImage("Transpose", y, x, rows*cols, rows*cols, rows, cols); err != nil {
		b.fail(err)
		return
	}
	b.layout("Transpose", lyTranspose, y, x, gpu.Tensor{}, gpu.Tensor{}, rows*cols, rows*cols, rows*cols, 0, rows, cols, 0, 0)
}

// Patchify folds 2×2 patches of x [c, h, w] into channels.
func (b *Backend) Patchify(y, x gpu.Tensor, c, h, w int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckPatchify(y, x, c, h, w, false); err != nil {
		b.fail(err)
		return
	}
	n := c * h * w
	b.layout("Patchify", lyPatchify, y, x, gpu.Tensor{}, gpu.Tensor{}, n, n, n, 0, h, w, 0, 0)
}

// Unpatchify is the inverse of Patchify: x [c, h, w] to y [c/4, 2h, 2w].
func (b *Backend) Unpatchify(y, x gpu.Tensor, c, h, w int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckPatchify(y, x, c, h, w, true); err != nil {
		b.fail(err)
		return
	}
	n := c * h * w
	b.layout("Unpatchify", lyUnpatchify, y, x, gpu.Tensor{}, gpu.Tensor{}, n, n, n, 0, h, w, 0, 0)
}

// UpsampleNearest2x doubles the height and width of x [channels, h, w].
func (b *Backend) UpsampleNearest2x(y, x gpu.Tensor, channels, h, w int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckImage("UpsampleNearest2x", y, x, channels*h*w, 4*channels*h*w, channels, h, w); err != nil {
		b.fail(err)
		return
	}
	n := 4 * channels * h * w
	b.layout("UpsampleNearest2x", lyUpsample, y, x, gpu.Tensor{}, gpu.Tensor{}, n, n, channels*h*w, 0, h, w, 0, 0)
}

// SwiGLU computes y[r·yStride + j] = silu(x[r·xStride + j])·x[r·xStride + hidden + j].
func (b *Backend) SwiGLU(y, x gpu.Tensor, rows, hidden, xStride, yStride int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if xStride == 0 {
		xStride = 2 * hidden
	}
	if yStride == 0 {
		yStride = hidden
	}
	if err := gpu.CheckSwiGLU(y, x, rows, hidden, xStride, yStride); err != nil {
		b.fail(err)
		return
	}
	if rows == 0 || hidden == 0 {
		return
	}
	b.layout("SwiGLU", lySwiGLU, y, x, gpu.Tensor{}, gpu.Tensor{}, rows*hidden,
		(rows-1)*yStride+hidden, (rows-1)*xStride+2*hidden, 0, hidden, xStride, yStride, 0)
}

// BatchNorm applies per-channel statistics to x [channels, hw].
func (b *Backend) BatchNorm(y, x, mean, std gpu.Tensor, channels, hw int, inverse bool) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckBatchNorm(y, x, mean, std, channels, hw); err != nil {
		b.fail(err)
		return
	}
	n := channels * hw
	b.layout("BatchNorm", lyBatchNorm, y, x, mean, std, n, n, n, channels, hw, 0, 0, int(bool32(inverse)))
}

// RoPE applies rotary position embeddings in place.
func (b *Backend) RoPE(x, cos, sin gpu.Tensor, seq, heads, headDim, stride int, interleaved bool) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckRoPE(x, cos, sin, seq, heads, headDim, stride); err != nil {
		b.fail(err)
		return
	}
	if seq == 0 || heads == 0 {
		return
	}
	b.layout("RoPE", lyRoPE, x, gpu.Tensor{}, cos, sin, seq*heads*headDim/2, (seq-1)*stride+heads*headDim, 0, seq*headDim,
		heads, headDim, stride, int(bool32(interleaved)))
}
