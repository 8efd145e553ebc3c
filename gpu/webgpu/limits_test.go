//go:build cgo

package webgpu

import (
	"testing"

	"kleinbild/gpu/gputest"
)

// TestConformanceDefaultLimits runs the whole conformance suite on a device opened with
// WebGPU's default limits (16 KiB workgroup memory, 128 MiB bindings, 256 MiB buffers, 256
// invocations), as portable GPUs give: kernel variants the limits cannot hold must be
// dropped and the large-tensor paths (windows, chunked weights) run at smaller sizes. Only
// verified on lavapipe. `make test-webgpu-limits` runs it.
func TestConformanceDefaultLimits(t *testing.T) {
	b := openWith(t, Options{Adapter: -1, DefaultLimits: true})
	l := b.lim
	if !b.DefaultLimits() || l.MaxComputeWorkgroupStorageSize > defaultWorkgroupStorage ||
		l.MaxComputeInvocationsPerWorkgroup > defaultInvocations || l.MaxStorageBufferBindingSize > defaultStorageBinding ||
		l.MaxBufferSize > defaultBufferSize {
		t.Fatalf("device limits %+v exceed WebGPU's defaults", l)
	}
	if b.Info().MaxBindingBytes > defaultStorageBinding {
		t.Errorf("Info().MaxBindingBytes %d above the default limit", b.Info().MaxBindingBytes)
	}
	for _, f := range Families() {
		if len(b.Variants(f)) == 0 {
			t.Errorf("family %s: no variant fits WebGPU's default limits", f)
		}
	}
	gputest.Run(t, b, gputest.Options{Short: testing.Short(), LogErrors: *logErrors})
}

// TestForcedVariants runs the conformance suite (short) once for every non-reference variant
// of every family, forced through Options.Variants: every variant must be exact, not only
// the one tuning picks on this machine.
func TestForcedVariants(t *testing.T) {
	probe := openWith(t, Options{Adapter: -1})
	for _, f := range Families() {
		names := probe.Variants(f)
		for _, v := range names[1:] {
			t.Run(f+"="+v, func(t *testing.T) {
				b := openWith(t, Options{Adapter: -1, Variants: map[string]string{f: v}})
				if b.Variant(f) != v {
					t.Fatalf("forced %s=%s, runs %s", f, v, b.Variant(f))
				}
				gputest.Run(t, b, gputest.Options{Short: true, LogErrors: *logErrors})
			})
		}
	}
}
