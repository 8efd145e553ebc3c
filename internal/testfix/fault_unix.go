//go:build unix

package testfix

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

// recovered starts the line a fault child prints once its fault reached the caller.
const recovered = "recovered on the caller:"

// RunChild runs the test name of this test binary again in a subprocess, with env=value and
// TMPDIR in a folder of t's, and fails t unless the subprocess passed and printed that its
// fault reached the caller (RecoverFault); it returns that line. In a subprocess, a SIGBUS
// fails t instead of ending the test binary.
func RunChild(t testing.TB, name, env, value string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+value, "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), recovered) {
		t.Fatalf("subprocess: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, recovered) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// MapFile writes contents as name in a temporary folder of t's, maps the file read-only and
// shared, and returns the mapping and the file's path; t's cleanup unmaps and closes it.
// Shrink the file to make reads of the mapping past its new end fault.
func MapFile(t testing.TB, name string, contents []byte) ([]byte, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, contents, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	data, err := syscall.Mmap(int(f.Fd()), 0, len(contents), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(data) })
	return data, path
}

// Shrink truncates the file at path to size bytes, as a program saving over a mapped file
// does: a read of its mapping past the page holding size then faults (SIGBUS).
func Shrink(t testing.TB, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// RecoverFault runs fn under debug.SetPanicOnFault, as engine.Model.Generate does, and fails
// t unless a memory fault in fn reached this goroutine as a recoverable runtime error with an
// address; what names fn's work in the failure. It then prints the line RunChild looks for.
func RecoverFault(t testing.TB, what string, fn func()) {
	t.Helper()
	r := func() (r any) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { r = recover() }()
		fn()
		return nil
	}()
	e, isRuntime := r.(runtime.Error)
	_, hasAddr := r.(interface{ Addr() uintptr })
	if !isRuntime || !hasAddr {
		t.Fatalf("%s over a truncated mapping: recovered %v (%T), want a memory fault", what, r, r)
	}
	fmt.Printf("%s %v\n", recovered, e)
}
