//go:build !unix && !windows

package weights

import (
	"io"
	"os"
)

// mmapped reports that mapFile returns heap copies, not mappings, on this platform.
const mmapped = false

// mapFile reads the whole file where no mapping is implemented (Plan 9, js, wasip1).
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
