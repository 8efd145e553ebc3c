//go:build cgo && unix

package webgpu

import (
	"os"
	"runtime"
	"testing"

	"kleinbild/internal/testfix"
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
	testfix.RunChild(t, "TestParallelCopyFault", copyFaultChildEnv, "1")
}

func copyFaultChild(t *testing.T) {
	runtime.GOMAXPROCS(2) // two halves: the caller's stays backed, the other faults
	const size = 4 * copyPart
	data, path := testfix.MapFile(t, "weights.bin", make([]byte, size))
	testfix.Shrink(t, path, size/2)
	dst := make([]byte, size)
	testfix.RecoverFault(t, "a copy", func() { parallelCopy(dst, data) })
}
