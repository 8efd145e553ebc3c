package sysmem

import (
	"runtime"
	"testing"
)

func TestReadOnLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/meminfo only")
	}
	// Linux reports the memory available now, never nothing.
	if s := Read(); !s.Known || s.Total || s.Bytes == 0 {
		t.Errorf("Read() = %+v, want known available memory", s)
	}
}
