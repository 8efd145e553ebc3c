//go:build linux || darwin

package download

import (
	"errors"
	"syscall"
)

// diskFree returns the bytes available to unprivileged users on the filesystem holding dir.
func diskFree(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}

// isDiskFull reports whether err is "no space left on device" or "disk quota exceeded".
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
