//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"

	"kleinbild/gpu"
)

// The ops of elementwise.comp.
const (
	ewAdd = iota
	ewMul
	ewAddScaled
	ewGuidance
	ewSiLU
	ewCopy
	ewGatedAdd
)

// elementwise queues op over n values of y, a and (unless zero) bt in windows that fit one
// binding each; gate (GatedAdd) is dim long, bound whole.
func (b *Backend) elementwise(name string, op int, y, a, bt gpu.Tensor, n, dim int, s float32) {
	seg := max(int(b.pd.lim.maxStorageRange-2*max(b.pd.lim.storageAlign, 4))/4&^255, 256)
	if op == ewGatedAdd {
		seg = max(seg/dim, 1) * dim
	}
	for lo := 0; lo < n; lo += seg {
		hi := min(n, lo+seg)
		c := b.newCall(name)
		yb := c.out(y.Slice(lo, hi), hi-lo)
		ab := c.in(a.Slice(lo, hi), hi-lo)
		var bb uint32
		switch {
		case op == ewGatedAdd:
			bb = c.in(bt, dim)
		case bt.IsZero():
			bb = c.in(a.Slice(lo, hi), hi-lo)
		default:
			bb = c.in(bt.Slice(lo, hi), hi-lo)
		}
		gx, gy := b.grid((hi - lo + 255) / 256)
		c.run("elementwise", []uint32{uint32(hi - lo), uint32(op), yb, ab, bb, uint32(max(dim, 1)), uint32(lo), f32u(s)}, gx, gy, 1)
	}
}

// SiLU computes y = x·sigmoid(x).
func (b *Backend) SiLU(y, x gpu.Tensor) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckSame("SiLU", y, x); err != nil {
		b.fail(err)
		return
	}
	b.elementwise("SiLU", ewSiLU, y, x, gpu.Tensor{}, y.Len(), 0, 0)
}

// Add computes y = a + b.
func (b *Backend) Add(y, a, bt gpu.Tensor) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckSame("Add", y, a, bt); err != nil {
		b.fail(err)
		return
	}
	b.elementwise("Add", ewAdd, y, a, bt, y.Len(), 0, 0)
}

// Mul computes y = a·b.
func (b *Backend) Mul(y, a, bt gpu.Tensor) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckSame("Mul", y, a, bt); err != nil {
		b.fail(err)
		return
	}
	b.elementwise("Mul", ewMul, y, a, bt, y.Len(), 0, 0)
}

// GatedAdd computes x[r] += gate ⊙ y[r].
func (b *Backend) GatedAdd(x, y, gate gpu.Tensor, rows, dim int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckGatedAdd(x, y, gate, rows, dim); err != nil {
		b.fail(err)
		return
	}
	b.elementwise("GatedAdd", ewGatedAdd, x, y, gate, rows*dim, dim, 0)
}

// AddScaled computes y += float32(s·x).
func (b *Backend) AddScaled(y, x gpu.Tensor, s float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckSame("AddScaled", y, x); err != nil {
		b.fail(err)
		return
	}
	b.elementwise("AddScaled", ewAddScaled, y, x, gpu.Tensor{}, y.Len(), 0, s)
}

// Guidance computes cond = uncond + float32(scale·float32(cond − uncond)).
func (b *Backend) Guidance(cond, uncond gpu.Tensor, scale float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckSame("Guidance", cond, uncond); err != nil {
		b.fail(err)
		return
	}
	b.elementwise("Guidance", ewGuidance, cond, uncond, gpu.Tensor{}, cond.Len(), 0, scale)
}

// Copy copies src into dst (a buffer copy).
func (b *Backend) Copy(dst, src gpu.Tensor) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckCopy(dst, src); err != nil {
		b.fail(err)
		return
	}
	if src.Len() == 0 {
		return
	}
	xd, err1 := b.own("Copy", dst)
	xs, err2 := b.own("Copy", src)
	if err := firstErr(err1, err2); err != nil {
		b.fail(err)
		return
	}
	if xd.weight {
		b.fail(fmt.Errorf("vulkan: Copy: output %v is a read-only weight", dst))
		return
	}
	es := src.DType().Size() // a byte copy: bf16 at odd offsets too
	b.copyBuffer(xs.buf, xd.buf, uint64(src.Offset()*es), uint64(dst.Offset()*es), uint64(src.Len()*es))
}
