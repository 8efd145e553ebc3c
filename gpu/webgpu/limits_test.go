//go:build cgo

package webgpu

import (
	"os"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
)

// TestConformanceDefaultLimits runs the whole conformance suite on a device opened with
// WebGPU's default limits (16 KiB workgroup memory, 128 MiB bindings, 256 MiB buffers, 256
// invocations), as portable GPUs give: kernel variants the limits cannot hold must be
// dropped and the large-tensor paths (windows, chunked weights) run at smaller sizes. Only
// verified on lavapipe. `make test-webgpu-limits` runs it (it sets envSuites; a plain go test
// skips it, so that `make test` does not run the suite twice).
func TestConformanceDefaultLimits(t *testing.T) {
	needSuites(t)
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
	gputest.Run(t, b, gputest.Options{Short: testing.Short(), LogErrors: *logErrors, Quant: QuantTypes()})
}

// TestForcedVariants runs the conformance tests of a family's op (short; Linear's with
// quantized weights too) once for every non-reference variant, forced through Options.Variants: every variant must be exact, not
// only the one tuning picks on this machine. A variant changes only its family's kernels, so
// only that op's tests run (the whole suite runs under the default limits above; rerun per
// variant, its tests of other ops only drew new random inputs, and their degenerate cases,
// a 2-element GroupNorm or a 1-term Linear with cancellation, then missed their tolerances).
func TestForcedVariants(t *testing.T) {
	needSuites(t)
	probe := openWith(t, Options{Adapter: -1})
	for _, f := range Families() {
		names := probe.Variants(f)
		for _, v := range names[1:] {
			t.Run(f+"="+v, func(t *testing.T) {
				b := openWith(t, Options{Adapter: -1, Variants: map[string]string{f: v}})
				if b.Variant(f) != v {
					t.Fatalf("forced %s=%s, runs %s", f, v, b.Variant(f))
				}
				o := gputest.Options{Short: true, LogErrors: *logErrors, Quant: QuantTypes()}
				switch f {
				case FamilyLinear:
					gputest.TestLinear(t, b, o)
					gputest.TestLinearAdd(t, b, o)
					gputest.TestLinearQuant(t, b, o) // quantized weights run on the variant's tiles
				case FamilyConv:
					gputest.TestConv2D(t, b, o)
				case FamilyAttention, FamilyAttention512:
					gputest.TestAttention(t, b, o)
				default:
					t.Fatalf("family %s has no conformance tests here", f)
				}
			})
		}
	}
}

// TestTooLargeIsAnError: under the default limits an allocation above the buffer limit and
// a weight row above the binding limit end as errors naming the size and the device, and the
// backend stays usable (no abort: error scopes are on, on every platform).
func TestTooLargeIsAnError(t *testing.T) {
	b := openWith(t, Options{Adapter: -1, DefaultLimits: true})
	if _, err := b.Alloc(gpu.F32, 80<<20); err == nil || !strings.Contains(err.Error(), "maximum buffer size") || !strings.Contains(err.Error(), b.Info().Name) {
		t.Errorf("Alloc of 320 MiB under a 256 MiB buffer limit: %v", err)
	}
	if _, err := b.WeightF32(make([]float32, 40<<20), 1, 40<<20); err == nil || !strings.Contains(err.Error(), "binding limit") {
		t.Errorf("a 160 MiB weight row under a 128 MiB binding limit: %v", err)
	}
	x, err := b.Alloc(gpu.F32, 16)
	if err != nil {
		t.Fatalf("backend unusable after the refused allocations: %v", err)
	}
	b.Free(x)
	if err := b.Sync(); err != nil {
		t.Errorf("Sync after refused allocations: %v", err)
	}
}

// envSuites names the variable that turns on the extra conformance runs (default limits,
// every forced variant): `make test-webgpu-limits` sets it.
const envSuites = "KLEINBILD_WEBGPU_SUITES"

func needSuites(t *testing.T) {
	t.Helper()
	if os.Getenv(envSuites) != "1" {
		t.Skip(envSuites + "=1 runs this (make test-webgpu-limits)")
	}
}
