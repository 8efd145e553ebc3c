//go:build unix

package download

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting (errLocked: another holds it).
func tryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// release removes the lock file at p and then closes f, which releases the lock: a waiter
// that takes the lock in between finds the file gone from p (holds) and tries again.
func release(f *os.File, p string) {
	os.Remove(p)
	f.Close()
}
