//go:build unix

package cpu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu/purego"
)

// faultChildEnv makes TestWorkerFaultReachesCaller's subprocess run the faulting op.
const faultChildEnv = "KLEINBILD_TEST_WORKER_FAULT_CHILD"

// TestWorkerFaultReachesCaller: a bf16 weight viewing a file mapping, truncated so that only
// the first worker's share stays backed, faults in the widening kernel on the other worker
// goroutines. The fault must reach the calling goroutine as a recoverable panic (engine turns
// it into an error naming the file), not kill the process with SIGBUS (issue 23 item 7). The
// op runs in a subprocess, so a crash fails this test instead of ending the test binary.
func TestWorkerFaultReachesCaller(t *testing.T) {
	if os.Getenv(faultChildEnv) == "1" {
		workerFaultChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerFaultReachesCaller$", "-test.v")
	cmd.Env = append(os.Environ(), faultChildEnv+"=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "recovered on the caller:") {
		t.Fatalf("subprocess: %v\n%s", err, out)
	}
	t.Logf("%s", grepLine(string(out), "recovered on the caller:"))
}

func grepLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// workerFaultChild maps a file of bf16 weights, checks one Linear over it, truncates the
// file to the first worker's share and runs the Linear again under SetPanicOnFault, as
// engine.Model.Generate does.
func workerFaultChild(t *testing.T) {
	const in, out, workers = 256, 256, 4 // 64 Ki values: 4 widening tasks of 16 Ki (grain)
	path := filepath.Join(t.TempDir(), "weights.bin")
	bits := make([]byte, in*out*2)
	for i := 0; i < len(bits); i += 2 {
		bits[i+1] = 0x3f // bf16 0x3f00 = 0.5
	}
	if err := os.WriteFile(path, bits, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := syscall.Mmap(int(f.Fd()), 0, len(bits), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(data) }()

	b := New(purego.New()) // no native bf16: the weight is widened on the workers
	b.workers = workers
	w, err := b.WeightBF16(unsafe.Slice((*uint16)(unsafe.Pointer(&data[0])), in*out), out, in)
	if err != nil {
		t.Fatal(err)
	}
	x, err := gpu.FromHost(b, make([]float32, in))
	if err != nil {
		t.Fatal(err)
	}
	y, err := b.Alloc(gpu.F32, out)
	if err != nil {
		t.Fatal(err)
	}
	b.Linear(y, x, w, gpu.Tensor{}, 1)
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(bits)/workers)); err != nil { // 32 KiB: page-aligned
		t.Fatal(err)
	}
	r := func() (r any) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { r = recover() }()
		b.Linear(y, x, w, gpu.Tensor{}, 1)
		return nil
	}()
	e, isRuntime := r.(runtime.Error)
	_, hasAddr := r.(interface{ Addr() uintptr })
	if !isRuntime || !hasAddr {
		t.Fatalf("Linear over a truncated mapping: recovered %v (%T), want a memory fault", r, r)
	}
	fmt.Printf("recovered on the caller: %v\n", e)
}
