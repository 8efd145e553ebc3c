//go:build unix

package testfix

import (
	"os"
	"strings"
	"testing"
)

const faultChildEnv = "KLEINBILD_TEST_TESTFIX_FAULT_CHILD"

// TestShrunkMappingFault: a read past the end of a shrunk mapped file reaches RecoverFault as
// a memory fault, in the child RunChild starts.
func TestShrunkMappingFault(t *testing.T) {
	if os.Getenv(faultChildEnv) == "1" {
		page := os.Getpagesize()
		data, path := MapFile(t, "mapped.bin", make([]byte, 2*page))
		Shrink(t, path, int64(page))
		var sink byte
		RecoverFault(t, "a read", func() { sink = data[page] })
		_ = sink
		return
	}
	if line := RunChild(t, "TestShrunkMappingFault", faultChildEnv, "1"); !strings.HasPrefix(line, recovered) {
		t.Errorf("RunChild returned %q", line)
	}
}
