//go:build cgo && !noblas && !darwin && !windows

package gpu

import (
	"runtime"
	"testing"

	"kleinbild/gpu/openblas"
)

// TestDefaultIsOpenBLAS: where OpenBLAS is compiled in, it is the default and uses every core.
func TestDefaultIsOpenBLAS(t *testing.T) {
	d := Default()
	if d.Name() != "openblas" {
		t.Fatalf("Default() = %q, want openblas", d.Name())
	}
	b, ok := d.Backend().(*openblas.Backend)
	if !ok {
		t.Fatalf("Default().Backend() is %T", d.Backend())
	}
	if got, want := b.Threads(), runtime.NumCPU(); got != want {
		t.Errorf("OpenBLAS threads = %d, want %d (cores)", got, want)
	}
	if b.CoreName() == "" {
		t.Error("OpenBLAS reports no core name")
	}
	t.Logf("OpenBLAS kernels: %s, %d threads", b.CoreName(), b.Threads())
}
