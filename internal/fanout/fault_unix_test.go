//go:build unix

package fanout

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

// faultChildEnv makes TestFaultReachesCaller's subprocess run the faulting copy.
const faultChildEnv = "KLEINBILD_TEST_FANOUT_FAULT_CHILD"

// TestFaultReachesCaller: copying from a file mapping truncated to the caller's range faults
// on the other goroutine only; the fault must reach the caller as a recoverable panic, not
// kill the process with SIGBUS. It runs in a subprocess, so a crash fails this test instead
// of ending the test binary.
func TestFaultReachesCaller(t *testing.T) {
	if os.Getenv(faultChildEnv) == "1" {
		faultChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultReachesCaller$", "-test.v")
	cmd.Env = append(os.Environ(), faultChildEnv+"=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "recovered on the caller:") {
		t.Fatalf("subprocess: %v\n%s", err, out)
	}
}

func faultChild(t *testing.T) {
	const size = 1 << 20
	path := filepath.Join(t.TempDir(), "mapped.bin")
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
	if err := os.Truncate(path, size/2); err != nil { // the caller's range stays backed
		t.Fatal(err)
	}
	dst := make([]byte, size)
	r := func() (r any) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { r = recover() }()
		Ranges(size, 2, func(lo, hi int) { copy(dst[lo:hi], data[lo:hi]) })
		return nil
	}()
	e, isRuntime := r.(runtime.Error)
	_, hasAddr := r.(interface{ Addr() uintptr })
	if !isRuntime || !hasAddr {
		t.Fatalf("a copy over a truncated mapping: recovered %v (%T), want a memory fault", r, r)
	}
	fmt.Printf("recovered on the caller: %v\n", e)
}
