//go:build !unix

package safefile

import "os"

// nonBlock is not needed where opening a file cannot wait for a FIFO writer.
const nonBlock = 0

// probeWrite opens path for writing and closes it.
func probeWrite(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}
