//go:build !unix

package testfix

import "testing"

// FIFO skips t: named pipes in the file system are a Unix thing.
func FIFO(t testing.TB, dir, name string) string {
	t.Helper()
	t.Skip("no named pipes on this platform")
	return ""
}

// DevZero skips t: there is no /dev/zero on this platform.
func DevZero(t testing.TB, dir, name string) string {
	t.Helper()
	t.Skip("no /dev/zero on this platform")
	return ""
}
