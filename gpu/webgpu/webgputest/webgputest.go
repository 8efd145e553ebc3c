//go:build cgo

// Package webgputest is what the models' tests share when they check a pass on the WebGPU
// backend: the backend on the best adapter, and the check that a pass binds the operands its
// kernels only read read-only. Only tests import it.
package webgputest

import (
	"os"
	"testing"

	"kleinbild/gpu/webgpu"
)

// Open returns a backend on the best adapter, closed when t ends. With no adapter the test
// is skipped, unless KLEINBILD_REQUIRE_WEBGPU=1 (CI, with Mesa's software Vulkan installed):
// then it fails.
func Open(t testing.TB) *webgpu.Backend {
	t.Helper()
	b, err := webgpu.New(webgpu.Options{Adapter: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") == "1" {
			t.Fatalf("KLEINBILD_REQUIRE_WEBGPU=1 but: %v", err)
		}
		t.Skipf("no WebGPU adapter: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

// Trace runs pass with b's bindings recorded and returns the records.
func Trace(b *webgpu.Backend, pass func()) []webgpu.BindingRecord {
	var recs []webgpu.BindingRecord
	b.TraceBindings(func(r webgpu.BindingRecord) { recs = append(recs, r) })
	defer b.TraceBindings(nil)
	pass()
	return recs
}

// CheckReadOnly fails t when a dispatch in recs bound an input read_write (ops in inPlace
// work in place by design and are let be) or when one of the ops in want was never
// dispatched (the check would then prove nothing of it).
func CheckReadOnly(t testing.TB, recs []webgpu.BindingRecord, inPlace map[string]bool, want ...string) {
	t.Helper()
	seen, bad := webgpu.ReadWriteInputs(recs, inPlace)
	for _, op := range want {
		if seen[op] == 0 {
			t.Errorf("no %s dispatch recorded (recorded: %v)", op, seen)
		}
	}
	for _, l := range bad {
		t.Errorf("input bound read_write: %s", l)
	}
	t.Logf("%d dispatches: %v", len(recs), seen)
}
