// Package sysmem reports the machine's memory: what the engine's memory check, the estimate,
// the fit line and the model panel go by.
package sysmem

// Status describes the machine's memory for the model panel.
type Status struct {
	Bytes uint64
	// Known is false where the amount cannot be read.
	Known bool
	// Total is true when Bytes is installed memory rather than memory available now.
	Total bool
}

// Read reports the RAM the fit check uses (RAMForModels: available RAM on Linux and
// Windows, installed RAM on macOS, unknown elsewhere).
func Read() Status {
	b, total, ok := RAMForModels()
	return Status{Bytes: b, Known: ok, Total: total}
}
