//go:build unix

package testfix

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FIFO makes a named pipe dir/name with no writer (opening it for reading blocks) and returns
// its path; it skips t where the file system cannot hold one.
func FIFO(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	return p
}

// DevZero makes dir/name a symbolic link to /dev/zero (a character device that reads
// forever) and returns its path.
func DevZero(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	return p
}
