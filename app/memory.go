package app

import (
	"strconv"

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

// readMemory reports the RAM the fit check uses (engine.RAMForModels: available RAM on
// Linux, installed RAM on macOS, unknown elsewhere).
func readMemory() memoryStatus {
	b, total, ok := engine.RAMForModels()
	return memoryStatus{Bytes: b, Known: ok, Total: total}
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
