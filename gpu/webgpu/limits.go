//go:build cgo

package webgpu

import (
	"github.com/cogentcore/webgpu/wgpu"
)

// WebGPU's default limits (the values every WebGPU implementation must at least support,
// https://www.w3.org/TR/webgpu/#limit-default), those the kernels depend on.
const (
	defaultWorkgroupStorage   = 16 << 10
	defaultInvocations        = 256
	defaultWorkgroupSizeXY    = 256
	defaultWorkgroupSizeZ     = 64
	defaultWorkgroupsPerDim   = 65535
	defaultStorageBinding     = 128 << 20
	defaultUniformBinding     = 64 << 10
	defaultBufferSize         = 256 << 20
	defaultStorageBuffers     = 8
	defaultOffsetAlignment    = 256
	defaultBindGroups         = 4
	defaultBindingsPerGroup   = 1000
	defaultUniformBuffersPerS = 12
)

// defaultLimits lowers the adapter's limits ad to WebGPU's defaults (a limit the adapter
// has below the default stays; alignments are raised to the default's 256).
func defaultLimits(ad wgpu.Limits) wgpu.Limits {
	l := ad
	l.MaxComputeWorkgroupStorageSize = min(l.MaxComputeWorkgroupStorageSize, defaultWorkgroupStorage)
	l.MaxComputeInvocationsPerWorkgroup = min(l.MaxComputeInvocationsPerWorkgroup, defaultInvocations)
	l.MaxComputeWorkgroupSizeX = min(l.MaxComputeWorkgroupSizeX, defaultWorkgroupSizeXY)
	l.MaxComputeWorkgroupSizeY = min(l.MaxComputeWorkgroupSizeY, defaultWorkgroupSizeXY)
	l.MaxComputeWorkgroupSizeZ = min(l.MaxComputeWorkgroupSizeZ, defaultWorkgroupSizeZ)
	l.MaxComputeWorkgroupsPerDimension = min(l.MaxComputeWorkgroupsPerDimension, defaultWorkgroupsPerDim)
	l.MaxStorageBufferBindingSize = min(l.MaxStorageBufferBindingSize, defaultStorageBinding)
	l.MaxUniformBufferBindingSize = min(l.MaxUniformBufferBindingSize, defaultUniformBinding)
	l.MaxBufferSize = min(l.MaxBufferSize, defaultBufferSize)
	l.MaxStorageBuffersPerShaderStage = min(l.MaxStorageBuffersPerShaderStage, defaultStorageBuffers)
	l.MaxUniformBuffersPerShaderStage = min(l.MaxUniformBuffersPerShaderStage, defaultUniformBuffersPerS)
	l.MaxBindGroups = min(l.MaxBindGroups, defaultBindGroups)
	l.MaxBindingsPerBindGroup = min(l.MaxBindingsPerBindGroup, defaultBindingsPerGroup)
	l.MinStorageBufferOffsetAlignment = max(l.MinStorageBufferOffsetAlignment, defaultOffsetAlignment)
	l.MinUniformBufferOffsetAlignment = max(l.MinUniformBufferOffsetAlignment, defaultOffsetAlignment)
	return l
}

// DefaultLimits reports whether the device was opened with WebGPU's default limits.
func (b *Backend) DefaultLimits() bool { return b.defLim }

// Dispatch length. A dispatch that runs too long trips the GPU watchdog: 2 s on Windows
// (TDR), a few seconds on macOS; Linux compositors vary. Kernels that can split their work
// (attention over query ranges, the VAE's convolutions over rows) keep each dispatch under
// MaxDispatchFLOPs.
const (
	// DispatchSeconds is the longest a dispatch should run: well under the 2 s watchdog.
	DispatchSeconds = 0.1
	// unmeasuredGFLOPS is the rate assumed before tuning has measured the device: a low-end
	// integrated GPU's f32 matrix-product rate, so that the bound errs on short dispatches.
	unmeasuredGFLOPS = 100
)

// MaxDispatchFLOPs is the work (2 FLOPs per multiply-add) one dispatch may hold so that it
// runs about DispatchSeconds on this device: the matrix-product rate measured by tuning
// (SetMeasuredGFLOPS; the conservative unmeasuredGFLOPS before that) times DispatchSeconds.
// Only verified on lavapipe, which has no watchdog.
func (b *Backend) MaxDispatchFLOPs() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.maxDispatchFLOPsLocked()
}

func (b *Backend) maxDispatchFLOPsLocked() float64 {
	g := b.gflops
	if g <= 0 {
		g = unmeasuredGFLOPS
	}
	return g * 1e9 * DispatchSeconds
}

// MeasuredGFLOPS is the device's matrix-product rate measured by tuning (0: not measured).
func (b *Backend) MeasuredGFLOPS() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gflops
}

// SetMeasuredGFLOPS records the device's measured matrix-product rate (tuning does; a
// non-positive rate forgets it).
func (b *Backend) SetMeasuredGFLOPS(g float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gflops = max(g, 0)
}
