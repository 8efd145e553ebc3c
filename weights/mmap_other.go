//go:build !unix

package weights

import (
	"io"
	"os"
)

// mapFile reads the whole file where mmap is unavailable (Windows build).
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

func dontNeed(b []byte) {}
