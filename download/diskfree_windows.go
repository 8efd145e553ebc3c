package download

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// diskFree returns the bytes available to this user on the volume holding dir
// (GetDiskFreeSpaceEx, which honours quotas).
func diskFree(dir string) (uint64, bool) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, false
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return 0, false
	}
	return avail, true
}

// isDiskFull reports whether err is "no space left on device": ERROR_DISK_FULL,
// ERROR_HANDLE_DISK_FULL, or Go's portable ENOSPC.
func isDiskFull(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, syscall.ENOSPC)
}
