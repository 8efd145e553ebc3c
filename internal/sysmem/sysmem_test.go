package sysmem

import (
	"runtime"
	"testing"
)

func TestReadAvailable(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "windows" {
		t.Skip("/proc/meminfo or GlobalMemoryStatusEx only")
	}
	// Linux and Windows report the memory available now, never nothing.
	if s := Read(); !s.Known || s.Total || s.Bytes == 0 {
		t.Errorf("Read() = %+v, want known available memory", s)
	}
}

// TestTotalAtLeastAvailable: the installed memory is known and no smaller than what is
// available (on Windows both come from GlobalMemoryStatusEx, untried before issue 38).
func TestTotalAtLeastAvailable(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "windows" {
		t.Skip("/proc/meminfo or GlobalMemoryStatusEx only")
	}
	total, ok := TotalRAM()
	avail, aok := AvailableRAM()
	if !ok || !aok || total < avail {
		t.Errorf("TotalRAM() = %d, %v; AvailableRAM() = %d, %v", total, ok, avail, aok)
	}
}
