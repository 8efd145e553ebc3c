//go:build cgo && !noblas && !darwin && !windows

package backends

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/onednn"
	"kleinbild/gpu/cpu/openblas"
)

// TestDefaultIsOpenBLAS: where OpenBLAS is compiled in, it is the default CPU backend (the
// default without a real GPU) and uses every core.
func TestDefaultIsOpenBLAS(t *testing.T) {
	d := DefaultCPU()
	if d.Name() != "openblas" {
		t.Fatalf("DefaultCPU() = %q, want openblas", d.Name())
	}
	c, ok := d.(*cpu.Backend)
	if !ok {
		t.Fatalf("Default() is %T", d)
	}
	b, ok := c.BLAS().(*openblas.Backend)
	if !ok {
		t.Fatalf("Default().BLAS() is %T", c.BLAS())
	}
	if got, want := b.Threads(), runtime.NumCPU(); got != want {
		t.Errorf("OpenBLAS threads = %d, want %d (cores)", got, want)
	}
	if b.CoreName() == "" {
		t.Error("OpenBLAS reports no core name")
	}
	t.Logf("OpenBLAS kernels: %s, %d threads", b.CoreName(), b.Threads())
}

// TestOneDNNSelection: oneDNN is listed exactly when it loads, is never the default, and runs
// its f32 products on OpenBLAS. On Linux/amd64 it must be available when the CPU has
// avx512_bf16 and libdnnl.so.2 is installed (as on the development machines).
func TestOneDNNSelection(t *testing.T) {
	avail := onednn.Available()
	listed := slices.Contains(Names(), "onednn")
	if listed != (avail == nil) {
		t.Fatalf("onednn listed=%v but Available() = %v", listed, avail)
	}
	if Default().Name() == "onednn" {
		t.Error("onednn must not be the default (it rounds activations to bf16)")
	}
	if avail != nil {
		if _, err := Open("onednn"); err == nil {
			t.Error("Open(onednn) succeeded while unavailable")
		}
		if cpuHasFlag("avx512_bf16") && libInstalled("libdnnl.so.2") {
			t.Errorf("CPU has avx512_bf16 and libdnnl.so.2 is installed, yet: %v", avail)
		}
		t.Skipf("onednn unavailable: %v", avail)
	}
	d, err := Open("onednn")
	if err != nil {
		t.Fatal(err)
	}
	c, ok := d.(*cpu.Backend)
	if !ok {
		t.Fatalf("Open(onednn) is %T", d)
	}
	b, ok := c.BLAS().(*onednn.Backend)
	if !ok {
		t.Fatalf("Open(onednn).BLAS() is %T", c.BLAS())
	}
	if _, ok := b.F32().(*openblas.Backend); !ok {
		t.Errorf("onednn wraps %T, want *openblas.Backend", b.F32())
	}
	if _, ok := c.BLAS().(cpu.BF16MatMuler); !ok {
		t.Error("onednn backend does not implement BF16MatMuler")
	}
	t.Log(b.Info())
}

func cpuHasFlag(flag string) bool {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if name, val, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			return slices.Contains(strings.Fields(val), flag)
		}
	}
	return false
}

func libInstalled(name string) bool {
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"} {
		if _, err := os.Stat(dir + "/" + name); err == nil {
			return true
		}
	}
	return false
}
