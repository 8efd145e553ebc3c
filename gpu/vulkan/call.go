//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"math"

	"kleinbild/gpu"
)

// call collects the bindings of one kernel run; the first problem is kept and reported by
// run instead of recording anything.
type call struct {
	b     *Backend
	op    string
	binds []binding
	err   error
}

func (b *Backend) newCall(op string) *call { return &call{b: b, op: op} }

func (c *call) setErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

// out binds span elements of t from its start as an output and returns the index, within the
// binding, of t's element 0.
func (c *call) out(t gpu.Tensor, span int) uint32 {
	if x, ok := t.Buffer().(*buffer); ok && x.weight {
		c.setErr(fmt.Errorf("vulkan: %s: output %v is a read-only weight", c.op, t))
	}
	return c.bind(t, span)
}

// in binds span elements of t from its start as an input (the zero Tensor: a dummy).
func (c *call) in(t gpu.Tensor, span int) uint32 {
	if t.IsZero() {
		c.binds = append(c.binds, binding{buf: c.b.dummy.buf, rng: c.b.dummy.size})
		return 0
	}
	return c.bind(t, span)
}

// bind binds t's buffer whole, or where it exceeds the device's largest storage binding the
// aligned window holding elements [0, span) of t.
func (c *call) bind(t gpu.Tensor, span int) uint32 {
	b := c.b
	x, err := b.own(c.op, t)
	if err != nil {
		c.setErr(err)
		c.binds = append(c.binds, binding{buf: b.dummy.buf, rng: b.dummy.size})
		return 0
	}
	es := uint64(t.DType().Size())
	maxRange := b.pd.lim.maxStorageRange
	if x.size <= maxRange || es == 0 { // quantized weights: within one binding (WeightQuant)
		c.binds = append(c.binds, binding{buf: x.buf, rng: min(x.size, maxRange)})
		return uint32(t.Offset())
	}
	align := max(b.pd.lim.storageAlign, 4)
	start := uint64(t.Offset()) * es / align * align
	end := min((uint64(t.Offset()+max(span, 1))*es+3)&^3, x.size)
	if end-start > maxRange {
		c.setErr(fmt.Errorf("vulkan: %s: an operand spans %s, more than the %s one kernel argument may bind on %s",
			c.op, gb(int64(end-start)), gb(int64(maxRange)), b.pd.info.Name))
		c.binds = append(c.binds, binding{buf: b.dummy.buf, rng: b.dummy.size})
		return 0
	}
	c.binds = append(c.binds, binding{buf: x.buf, off: start, rng: end - start})
	return uint32(uint64(t.Offset()) - start/es)
}

// run records kernel name over a grid of workgroups, or records the call's error.
func (c *call) run(name string, params []uint32, gx, gy, gz uint32) {
	b := c.b
	if c.err != nil {
		b.fail(c.err)
		return
	}
	lim := b.pd.lim.maxGroups
	if gx > lim[0] || gy > lim[1] || gz > lim[2] {
		b.fail(fmt.Errorf("vulkan: %s: a grid of %d×%d×%d workgroups exceeds %s's %v", c.op, gx, gy, gz, b.pd.info.Name, lim))
		return
	}
	if gx == 0 || gy == 0 || gz == 0 {
		return
	}
	p, err := b.pipeline(name)
	if err == nil {
		b.profOp = c.op
		err = b.dispatch(p, c.binds, params, gx, gy, gz)
	}
	if err != nil {
		b.failVK(fmt.Errorf("vulkan: %s: %w", c.op, err))
	}
}

// grid lays n workgroups out as gx × gy within the device's limit per dimension.
func (b *Backend) grid(n int) (gx, gy uint32) {
	if n <= 0 {
		return 0, 0
	}
	w := int(min(b.pd.lim.maxGroups[0], 32768))
	if n <= w {
		return uint32(n), 1
	}
	return uint32(w), uint32((n + w - 1) / w)
}

func f32u(f float32) uint32 { return math.Float32bits(f) }

func bool32(v bool) uint32 {
	if v {
		return 1
	}
	return 0
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
