//go:build !linux && !darwin

package download

import (
	"errors"
	"syscall"
)

// diskFree is unknown on this platform: the download then relies on write errors alone.
func diskFree(string) (uint64, bool) { return 0, false }

// isDiskFull reports whether err is "no space left on device" (ENOSPC, or Windows'
// ERROR_DISK_FULL / ERROR_HANDLE_DISK_FULL).
func isDiskFull(err error) bool {
	var errno syscall.Errno
	if errors.As(err, &errno) && (errno == 112 || errno == 39) {
		return true
	}
	return errors.Is(err, syscall.ENOSPC)
}
