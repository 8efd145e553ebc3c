//go:build !unix

package download

import "os"

// tryLock does nothing where flock is not available.
func tryLock(*os.File) error { return nil }

// release closes the lock file f and removes it (at p): Windows cannot remove a file that is
// open, and without a lock there is no waiter to race with.
func release(f *os.File, p string) {
	f.Close()
	os.Remove(p)
}
