//go:build cgo && unix

package webgpu

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
)

// copyFaultChildEnv makes TestParallelCopyFault's subprocess run the faulting copy.
const copyFaultChildEnv = "KLEINBILD_TEST_COPY_FAULT_CHILD"

// TestParallelCopyFault: staging weights from a mapped file that shrank under the upload
// faults on a copying goroutine; the fault must reach the caller, where the engine turns it
// into an error naming the file, not kill the process with SIGBUS (the copies once ran on
// goroutines of their own, unguarded). It runs in a subprocess, so a crash fails this test
// instead of ending the test binary.
func TestParallelCopyFault(t *testing.T) {
	if os.Getenv(copyFaultChildEnv) == "1" {
		copyFaultChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestParallelCopyFault$", "-test.v")
	cmd.Env = append(os.Environ(), copyFaultChildEnv+"=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "recovered on the caller:") {
		t.Fatalf("subprocess: %v\n%s", err, out)
	}
}

func copyFaultChild(t *testing.T) {
	runtime.GOMAXPROCS(2) // two halves: the caller's stays backed, the other faults
	const size = 4 * copyPart
	path := filepath.Join(t.TempDir(), "weights.bin")
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(data) }()
	if err := os.Truncate(path, size/2); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, size)
	r := func() (r any) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { r = recover() }()
		parallelCopy(dst, data)
		return nil
	}()
	e, isRuntime := r.(runtime.Error)
	_, hasAddr := r.(interface{ Addr() uintptr })
	if !isRuntime || !hasAddr {
		t.Fatalf("a copy over a truncated mapping: recovered %v (%T), want a memory fault", r, r)
	}
	fmt.Printf("recovered on the caller: %v\n", e)
}
