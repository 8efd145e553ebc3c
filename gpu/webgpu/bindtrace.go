//go:build cgo

package webgpu

// BindingRecord is one queued dispatch as TraceBindings reports it: which storage bindings
// its kernel declared read_write.
type BindingRecord struct {
	Op      string // the gpu.Backend method that queued it
	Kernel  string // the kernel's name
	Outputs int    // bindings 1..Outputs: the outputs, always read_write
	Inputs  int    // the next Inputs bindings: the inputs
	// ReadWrite marks (bit i) input i bound read_write because it shares a buffer with an
	// output; every other input is read-only.
	ReadWrite uint32
}

// TraceBindings calls f for every dispatch queued from now on (nil stops), under the
// backend's lock: f must not call the backend. For tests.
func (b *Backend) TraceBindings(f func(BindingRecord)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bindTrace = f
}
