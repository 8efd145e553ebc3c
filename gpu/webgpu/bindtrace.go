//go:build cgo

package webgpu

import (
	"fmt"
	"sort"
)

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

// ReadWriteInputs counts recs by op (seen) and lists, sorted, the dispatches with an input
// bound read_write, as "op (kernel, inputs mask of n) ×count", leaving out the ops in
// inPlace (those that work in place by design).
func ReadWriteInputs(recs []BindingRecord, inPlace map[string]bool) (seen map[string]int, bad []string) {
	seen = map[string]int{}
	counts := map[string]int{}
	for _, r := range recs {
		seen[r.Op]++
		if r.ReadWrite != 0 && !inPlace[r.Op] {
			counts[fmt.Sprintf("%s (%s, inputs %b of %d)", r.Op, r.Kernel, r.ReadWrite, r.Inputs)]++
		}
	}
	for k, n := range counts {
		bad = append(bad, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(bad)
	return seen, bad
}
