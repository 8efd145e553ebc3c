//go:build unix

package safefile

import (
	"errors"
	"os"
	"syscall"
)

// nonBlock makes opening a FIFO return at once (it is then refused as not regular).
const nonBlock = syscall.O_NONBLOCK

// probeWrite checks that path may be written: a FIFO by its permissions only (opening it
// would hand a waiting reader an early end of file), anything else by opening it for
// writing without blocking and closing it again.
func probeWrite(path string) error {
	if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		if err := syscall.Access(path, 2 /* W_OK */); err != nil {
			return &os.PathError{Op: "open", Path: path, Err: err}
		}
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) { // a FIFO after all, without a reader
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}
