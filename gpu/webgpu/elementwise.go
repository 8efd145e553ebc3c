//go:build cgo

package webgpu

import (
	_ "embed"
	"fmt"

	"kleinbild/gpu"
)

//go:embed common.wgsl
var commonWGSL string

//go:embed elementwise.wgsl
var elementwiseWGSL string

//go:embed copy16.wgsl
var copy16WGSL string

var copy16Kernel = kernel{name: "copy16", src: copy16WGSL, nOut: 1, nIn: 1}

var elementwiseKernel = kernel{name: "elementwise", src: wgslConsts(elementwiseOps...) + commonWGSL + elementwiseWGSL, nOut: 1, nIn: 2}

const (
	ewAdd = iota
	ewMul
	ewAddScaled
	ewGuidance
	ewSiLU
	ewCopy
	ewGatedAdd
)

// segment is the number of f32 values one element-wise dispatch covers: operands larger
// than one binding run in several dispatches over windows.
func (b *Backend) segment() int {
	n := int((b.lim.MaxStorageBufferBindingSize - 2*uint64(max(b.lim.MinStorageBufferOffsetAlignment, 256))) / 4)
	return max(n&^255, 256)
}

// elementwise queues op over n values: y, a and (unless zero) b are windowed together;
// gate (GatedAdd) is bound whole.
func (b *Backend) elementwise(name string, op int, y, a, bt gpu.Tensor, n, dim int, s float32) {
	seg := b.segment()
	if op == ewGatedAdd {
		seg = max(seg/dim, 1) * dim
	}
	for lo := 0; lo < n; lo += seg {
		hi := min(n, lo+seg)
		c := b.newCall(name)
		yb := c.out(y, lo, hi)
		ab := c.in(a, lo, hi)
		var bb uint32
		if op == ewGatedAdd {
			bb = c.in(bt, 0, dim)
		} else if bt.IsZero() {
			bb = c.in(a, lo, hi)
		} else {
			bb = c.in(bt, lo, hi)
		}
		gx, gy := b.grid((hi - lo + 255) / 256)
		c.run(&elementwiseKernel, "", []uint32{uint32(hi - lo), uint32(op), yb + uint32(lo), ab + uint32(lo), bb + uint32(lo*bool01(op != ewGatedAdd)), uint32(max(dim, 1)), uint32(lo), f32u(s)}, gx, gy, 1)
	}
}

func bool01(v bool) int {
	if v {
		return 1
	}
	return 0
}

func (b *Backend) begin() bool {
	b.mu.Lock()
	if !b.usable() {
		b.mu.Unlock()
		return false
	}
	return true
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
	if rows*dim == 0 {
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

// Copy copies src into dst.
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
	if err1 != nil || err2 != nil {
		b.fail(firstErr(err1, err2))
		return
	}
	if xd.weight {
		b.fail(fmt.Errorf("webgpu: Copy: output %v is a read-only weight", dst))
		return
	}
	es := src.DType().Size()
	// A buffer-to-buffer copy when the byte ranges are 4-aligned and the buffers differ.
	if (src.Offset()*es)%4 == 0 && (dst.Offset()*es)%4 == 0 && (src.Len()*es)%4 == 0 {
		sb, so, e1 := xs.locate(src.Offset(), src.Len())
		db, do, e2 := xd.locate(dst.Offset(), dst.Len())
		if e1 == nil && e2 == nil && sb != db {
			b.pending = append(b.pending, dispatch{copySrc: sb, copySrcOff: uint64(so * es), copyDst: db, copyDstOff: uint64(do * es), copySize: uint64(src.Len() * es)})
			if len(b.pending) >= maxPending {
				b.flushLocked(false)
			}
			return
		}
	}
	if src.DType() == gpu.BF16 {
		n := src.Len()
		c := b.newCall("Copy")
		db := c.out(dst, 0, n)
		sb := c.in(src, 0, n)
		w0, w1 := db/2, (db+uint32(n)+1)/2
		gx, gy := b.grid((int(w1-w0) + 255) / 256)
		c.run(&copy16Kernel, "", []uint32{uint32(n), db, sb, w0, w1 - w0}, gx, gy, 1)
		return
	}
	b.elementwise("Copy", ewCopy, dst, src, gpu.Tensor{}, src.Len(), 0, 0)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func errDimsf(format string, args ...any) error { return fmt.Errorf("webgpu: "+format, args...) }
