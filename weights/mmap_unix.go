//go:build unix

package weights

import (
	"os"
	"syscall"
)

// mmapped reports that mapFile returns real memory mappings on this platform.
const mmapped = true

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
