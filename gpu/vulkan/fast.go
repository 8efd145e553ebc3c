//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"strings"

	"kleinbild/gpu"
)

var _ gpu.Precisioner = (*Backend)(nil)

// SetPrecision implements gpu.Precisioner. Exact (the default) runs every product in
// float32. Fast runs Linear on bf16 weights with float16 operands and float32 sums
// (linearf16.glsl): on the device's matrix units where it has them (linearcm.comp, compiled
// here: where the driver refuses it, the units are given up), else on the plain twin kernel
// with the same roundings (linearf16.comp). Conv2D and attention up to head dim 128 run on
// float16 operands too (convcm.go, attentioncm.go); other weights and ops stay exact. The
// first switch to fast on matrix units runs SelfCheck (verifyUnits): a unit kernel that
// differs from its twin gives the units up.
func (b *Backend) SetPrecision(p gpu.Precision) (string, error) {
	switch p {
	case gpu.PrecisionExact:
		b.mu.Lock()
		defer b.mu.Unlock()
		b.fast = false
		return "exact (float32)", nil
	case gpu.PrecisionFast:
		b.mu.Lock()
		b.fast = true
		for name := range unitKernels {
			if b.units == nil {
				break
			}
			if _, err := b.pipeline(name); err != nil { // the twins then, and the note says why
				b.units, b.unitsNote = nil, fmt.Sprintf("matrix units whose kernel did not compile (%v)", err)
			}
		}
		check := b.units != nil && !b.unitsChecked
		b.unitsChecked = true
		b.mu.Unlock()
		if check {
			b.verifyUnits(b.SelfCheck)
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.fastNote(), nil
	}
	return "", fmt.Errorf("vulkan: unknown precision %q", p)
}

// verifyUnits runs check (SelfCheck: every matrix-unit kernel against its twin) and gives
// the units up, for the twins, when a kernel fails or the check cannot run: the fast
// precision may be a default (the app's, on a device with matrix units), so kernels that
// have never met this card must prove themselves before they make its images.
func (b *Backend) verifyUnits(check func() ([]gpu.KernelCheck, string, error)) {
	checks, _, err := check()
	why := ""
	if err != nil {
		why = err.Error()
	}
	for _, c := range checks {
		if why == "" && !c.OK() {
			why = fmt.Sprintf("%s differs from %s on %s: rel-L2 %.3g > %.3g", c.Kernel, c.Twin, c.Shape, c.RelL2, c.Tol)
		}
	}
	if why == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.units, b.unitsNote = nil, "matrix units that failed their self-check ("+why+")"
}

// fastNote says how the fast precision runs on this device.
func (b *Backend) fastNote() string {
	if b.units != nil {
		return fmt.Sprintf("fast (matrix units: %v)", b.units)
	}
	return fmt.Sprintf("fast (twin kernel on float32 units: %s: %s)", b.pd.info.Name, b.unitsNote)
}

// fastKernel is the fast Linear's kernel on this device: linearcm on matrix units, else its
// twin.
func (b *Backend) fastKernel() string {
	if strings.HasPrefix(b.fastForce, "linear") {
		return b.fastForce
	}
	if b.units != nil {
		return "linearcm"
	}
	return "linearf16"
}

// rowScales queues rowscale.comp on x [rows, k] for op into the scratch of row scales and returns
// it (nil after recording an error). The scratch is reused by every fast Linear: each
// dispatch waits for the previous one (Backend.barrier).
func (b *Backend) rowScales(op string, x gpu.Tensor, rows, k int) *buffer {
	need := int64(4 * max(rows, 1024))
	if b.scales == nil || b.scales.bytes < need {
		if b.scales != nil {
			b.releaseScratch(b.scales)
			b.scales = nil
		}
		resident, peak := b.resident, b.peak
		s, err := b.newBuffer(need)
		if err != nil {
			b.fail(fmt.Errorf("vulkan: %s: row scales: %w", op, err))
			return nil
		}
		b.resident, b.peak = resident, peak // scratch, not a tensor
		b.scales = s
	}
	c := b.newCall(op)
	c.raw(b.scales)
	xb := c.in(x, rows*k)
	gx, gy := b.grid(rows)
	c.run("rowscale", []uint32{uint32(rows), uint32(k), xb}, gx, gy, 1)
	return b.scales
}

// releaseScratch destroys a scratch buffer once no queued work uses it (freeLocked without
// the accounting of tensors).
func (b *Backend) releaseScratch(x *buffer) {
	b.resident += int64(x.size)
	b.freeLocked(x)
}

// raw binds the whole buffer x (backend scratch, not a tensor).
func (c *call) raw(x *buffer) {
	c.binds = append(c.binds, binding{buf: x.buf, rng: min(x.size, c.b.pd.lim.maxStorageRange)})
}
