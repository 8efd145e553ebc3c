package download

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"
)

// TestIsDiskFullWindows: Windows' two "disk full" errors and ENOSPC (what the tests' full
// disk returns), wrapped as a write returns them, are disk full; other errors are not.
func TestIsDiskFullWindows(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&os.PathError{Op: "write", Path: "x", Err: windows.ERROR_DISK_FULL}, true},
		{fmt.Errorf("part: %w", &os.PathError{Op: "write", Path: "x", Err: windows.ERROR_HANDLE_DISK_FULL}), true},
		{&os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, true},
		{&os.PathError{Op: "write", Path: "x", Err: windows.ERROR_ACCESS_DENIED}, false},
	} {
		if got := isDiskFull(c.err); got != c.want {
			t.Errorf("isDiskFull(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
