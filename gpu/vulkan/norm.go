//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import "kleinbild/gpu"

// The modes of norm.comp.
const (
	normRMS = iota
	normLayer
	normGroup
)

// norm queues segs segments of d values (see norm.glsl), reduced within subgroups where the
// device has subgroup arithmetic.
func (b *Backend) norm(op string, mode int, y, x, wt, vt gpu.Tensor, segs, d, heads, stride, span, vecLen, hw int, eps float32) {
	if segs == 0 || d == 0 {
		return
	}
	c := b.newCall(op)
	yb := c.out(y, span)
	xb := c.in(x, span)
	wb := c.in(wt, vecLen)
	vb := c.in(vt, vecLen)
	gx, gy := b.grid(segs)
	kernel := "norm"
	if b.sg.arith {
		kernel = "normsg"
	}
	c.run(kernel, []uint32{uint32(segs), uint32(d), uint32(max(heads, 1)), uint32(stride), xb, yb, wb, vb,
		bool32(!wt.IsZero()), bool32(!vt.IsZero()), uint32(mode), uint32(max(hw, 1)), 0, f32u(eps)}, gx, gy, 1)
}

// RMSNorm computes y[r] = x[r]·rsqrt(mean(x[r]²) + eps)·weight.
func (b *Backend) RMSNorm(y, x, weight gpu.Tensor, rows, dim int, eps float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckRows("RMSNorm", y, x, rows, dim, weight); err != nil {
		b.fail(err)
		return
	}
	b.norm("RMSNorm", normRMS, y, x, weight, gpu.Tensor{}, rows, dim, 1, dim, rows*dim, dim, 0, eps)
}

// HeadRMSNorm applies RMSNorm(headDim) in place to heads slices per row.
func (b *Backend) HeadRMSNorm(x, weight gpu.Tensor, rows, stride, heads, headDim int, eps float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckHeadRMSNorm(x, weight, rows, stride, heads, headDim); err != nil {
		b.fail(err)
		return
	}
	if rows == 0 || heads == 0 {
		return
	}
	span := (rows-1)*stride + heads*headDim
	b.norm("HeadRMSNorm", normRMS, x, x, weight, gpu.Tensor{}, rows*heads, headDim, heads, stride, span, headDim, 0, eps)
}

// LayerNorm computes y[r] = (x[r] − mean)/sqrt(var + eps)·(1 + scale) + shift.
func (b *Backend) LayerNorm(y, x, scale, shift gpu.Tensor, rows, dim int, eps float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckRows("LayerNorm", y, x, rows, dim, scale, shift); err != nil {
		b.fail(err)
		return
	}
	b.norm("LayerNorm", normLayer, y, x, scale, shift, rows, dim, 1, dim, rows*dim, dim, 0, eps)
}

// GroupNorm normalises x [channels, hw] over groups of channels.
func (b *Backend) GroupNorm(y, x, gamma, beta gpu.Tensor, channels, hw, groups int, eps float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckGroupNorm(y, x, gamma, beta, channels, hw, groups); err != nil {
		b.fail(err)
		return
	}
	if hw == 0 {
		return
	}
	b.norm("GroupNorm", normGroup, y, x, gamma, beta, groups, channels/groups*hw, 1, 0, channels*hw, channels, hw, eps)
}
