// Package safefile opens files named by users or found on disk without the surprises of
// special files: only regular files are read (a FIFO, device, socket or folder is refused
// at once instead of blocking or streaming forever), and reads are capped at a size limit.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Size limits for the kinds of files Kleinbild reads whole.
const (
	MaxConfigBytes    = 1 << 20  // a JSON config (config.json, model_index.json, …)
	MaxIndexBytes     = 64 << 20 // a sharded checkpoint's index JSON
	MaxTokenizerBytes = 64 << 20 // tokenizer.json
)

// ErrNotRegular is matched (errors.Is) by the errors for paths that are not regular files.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is matched (errors.Is) by the errors for files over a size limit.
var ErrTooLarge = errors.New("file too large")

// kindError says what a path is instead of a regular file.
type kindError struct{ what string }

func (e *kindError) Error() string {
	if e.what == "a directory" {
		return "is a directory"
	}
	return "is " + e.what + ", not a regular file"
}

func (e *kindError) Is(target error) bool { return target == ErrNotRegular }

// sizeError reports a file over its limit.
type sizeError struct{ size, limit int64 }

func (e *sizeError) Error() string {
	if e.size < 0 {
		return fmt.Sprintf("is larger than the %s limit", FormatBytes(e.limit))
	}
	return fmt.Sprintf("is %s, over the %s limit", FormatBytes(e.size), FormatBytes(e.limit))
}

func (e *sizeError) Is(target error) bool { return target == ErrTooLarge }

// Describe names the kind of a non-regular file mode ("a named pipe (FIFO)", …).
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file (" + m.Type().String() + ")"
}

// OpenRegular opens path (following symlinks) for reading if it is a regular file of at
// most maxBytes bytes (maxBytes <= 0: no limit). The open does not block on a FIFO; the
// kind is checked on the opened file, so a path swapped after a check cannot slip through.
// Errors are *fs.PathError values naming path; they match ErrNotRegular or ErrTooLarge.
func OpenRegular(path string, maxBytes int64) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: &kindError{Describe(st.Mode())}}
	}
	if maxBytes > 0 && st.Size() > maxBytes {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: &sizeError{st.Size(), maxBytes}}
	}
	return f, st, nil
}

// ReadRegular reads the regular file at path whole, refusing anything else (see
// OpenRegular) and files over maxBytes (checked before reading and again while reading, for
// a file that grows).
func ReadRegular(path string, maxBytes int64) ([]byte, error) {
	f, st, err := OpenRegular(path, maxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := io.Reader(f)
	if maxBytes > 0 {
		r = io.LimitReader(f, maxBytes+1)
	}
	buf := make([]byte, 0, st.Size()+1)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
	if maxBytes > 0 && int64(len(buf)) > maxBytes {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &sizeError{-1, maxBytes}}
	}
	return buf, nil
}

// FormatBytes writes a byte count for messages: "512 bytes", "1 MiB", "1.5 GiB".
func FormatBytes(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	s := fmt.Sprintf("%.1f", v)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + " " + [...]string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i]
}

// ProbeWrite checks that the device or pipe at path can be opened for writing, without
// blocking and without writing anything. A FIFO is checked by its permissions and never
// opened, so a reader already waiting on it is not disturbed.
func ProbeWrite(path string) error { return probeWrite(path) }
