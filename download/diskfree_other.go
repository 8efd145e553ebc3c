//go:build !linux && !darwin && !windows

package download

import (
	"errors"
	"syscall"
)

// diskFree is unknown on this platform: the download then relies on write errors alone.
func diskFree(string) (uint64, bool) { return 0, false }

// isDiskFull reports whether err is "no space left on device".
func isDiskFull(err error) bool { return errors.Is(err, syscall.ENOSPC) }
