package app

import (
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"kleinbild/engine"
)

// memoryStatus describes the machine's memory for the model panel.
type memoryStatus struct {
	Bytes uint64
	// Known is false where the amount cannot be read.
	Known bool
	// Total is true when Bytes is installed memory rather than memory available now.
	Total bool
}

// readMemory reports available RAM: MemAvailable on Linux, installed memory (sysctl
// hw.memsize) on macOS, unknown elsewhere.
func readMemory() memoryStatus {
	switch runtime.GOOS {
	case "linux", "android":
		b, ok := engine.AvailableRAM()
		return memoryStatus{Bytes: b, Known: ok}
	case "darwin":
		out, err := exec.Command("sysctl", "-n", "hw.memsize").Output()
		if err != nil {
			return memoryStatus{}
		}
		b, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
		return memoryStatus{Bytes: b, Known: err == nil, Total: true}
	}
	return memoryStatus{}
}

// humanBytes formats a byte count as "7.8 GB" (decimal units, like file managers).
func humanBytes(b uint64) string {
	switch {
	case b >= 1e9:
		return strconv.FormatFloat(float64(b)/1e9, 'f', 1, 64) + " GB"
	case b >= 1e6:
		return strconv.FormatFloat(float64(b)/1e6, 'f', 1, 64) + " MB"
	case b >= 1e3:
		return strconv.FormatFloat(float64(b)/1e3, 'f', 0, 64) + " kB"
	}
	return strconv.FormatUint(b, 10) + " B"
}
