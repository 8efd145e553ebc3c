//go:build unix

package fanout

import (
	"os"
	"testing"

	"kleinbild/internal/testfix"
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
	testfix.RunChild(t, "TestFaultReachesCaller", faultChildEnv, "1")
}

func faultChild(t *testing.T) {
	const size = 1 << 20
	data, path := testfix.MapFile(t, "mapped.bin", make([]byte, size))
	testfix.Shrink(t, path, size/2) // the caller's range stays backed
	dst := make([]byte, size)
	testfix.RecoverFault(t, "a copy", func() {
		Ranges(size, 2, func(lo, hi int) { copy(dst[lo:hi], data[lo:hi]) })
	})
}
