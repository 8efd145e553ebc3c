//go:build unix

package weights

import (
	"os"
	"syscall"
)

// mapFile maps f read-only. An empty file maps to an empty slice.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

// dontNeed tells the kernel the pages of b may be dropped (they are file-backed and
// read-only, so they come back from disk if touched again).
func dontNeed(b []byte) {
	if len(b) == 0 {
		return
	}
	// Align to the page that contains b[0]; MADV_DONTNEED on a read-only file
	// mapping only drops clean page-cache references.
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
}
