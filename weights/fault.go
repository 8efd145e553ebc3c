package weights

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
)

// ErrFileChanged is matched (errors.Is) by the error of a read that faulted because a mapped
// file shrank on disk (another program truncated or rewrote it) while it was read.
var ErrFileChanged = errors.New("the file changed or shrank on disk while it was read")

// IsFault reports whether r, a value recovered from a panic under debug.SetPanicOnFault, is a
// memory fault (such as reading a page of a mapped file past its new end) rather than a bug.
func IsFault(r any) bool {
	if _, ok := r.(runtime.Error); !ok {
		return false
	}
	_, addr := r.(interface{ Addr() uintptr })
	return addr
}

// FaultError is the error of a memory fault r (IsFault) while the mapping of the file at
// path was read: it wraps ErrFileChanged and names path and the faulting address, not the
// runtime's "invalid memory address or nil pointer dereference", which is how Go words
// every memory fault and which would send a reader looking for a bug.
func FaultError(path string, r any) error {
	var addr uintptr
	if a, ok := r.(interface{ Addr() uintptr }); ok {
		addr = a.Addr()
	}
	return &FileError{Path: path, Err: fmt.Errorf("%w (another program truncated or rewrote it; memory fault at %#x reading its mapping)", ErrFileChanged, addr)}
}

// Guard runs fn, which reads the mapping of the file at path, with debug.SetPanicOnFault on:
// a memory fault in fn (the file shrank while mapped; SIGBUS would kill the process) becomes
// an error wrapping ErrFileChanged and naming path (FaultError). Other panics pass on. Only
// fn's own goroutine is guarded (internal/fanout carries faults of helpers back to it).
func Guard(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !IsFault(r) {
				panic(r)
			}
			err = FaultError(path, r)
		}
	}()
	return fn()
}
