//go:build unix

package settings

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f without waiting.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// readOnlyFS reports an error of a read-only file system.
func readOnlyFS(err error) bool { return errors.Is(err, syscall.EROFS) }
