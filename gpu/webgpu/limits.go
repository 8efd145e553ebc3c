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

// MaxDispatchFLOPs is the work (2 FLOPs per multiply-add) one matrix-product dispatch may
// hold so that it runs about DispatchSeconds on this device (dispatch.go): the rate measured
// by tuning (SetMeasuredGFLOPS), else the FMA probe's share, else the device kind's default,
// times DispatchSeconds. Only verified on lavapipe, which has no watchdog.
func (b *Backend) MaxDispatchFLOPs() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rates.bound(b.info.Kind, FamilyLinear).flops
}

// MeasuredGFLOPS is the device's matrix-product rate measured by tuning (0: not measured).
func (b *Backend) MeasuredGFLOPS() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rates.linear
}

// SetMeasuredGFLOPS records the device's measured matrix-product rate (tuning does; a
// non-positive rate forgets it).
func (b *Backend) SetMeasuredGFLOPS(g float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rates.linear = max(g, 0)
}

// setFamilyGFLOPS records the rate measured on family's tuning workload: Linear's is the
// device's matrix-product rate, attention's bound attention's dispatches (others are not
// kept).
func (b *Backend) setFamilyGFLOPS(family string, g float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	g = max(g, 0)
	switch family {
	case FamilyLinear:
		b.rates.linear = g
	case FamilyAttention:
		b.rates.attention = g
	case FamilyAttention512:
		b.rates.attention512 = g
	}
}

// setFMAGFLOPS records the FMA probe's rate (MeasureFMA), which sizes dispatches until tuning
// has measured the families.
func (b *Backend) setFMAGFLOPS(g float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rates.fma = max(g, 0)
}

// dispatchBound is the bound of family's dispatches (b.mu held): SetDispatchFLOPs's when set
// (no floor: tests force splitting), else the device's rates (dispatch.go).
func (b *Backend) dispatchBound(family string) dispatchBound {
	if b.dispatchFLOPs > 0 {
		return dispatchBound{flops: b.dispatchFLOPs}
	}
	return b.rates.bound(b.info.Kind, family)
}
