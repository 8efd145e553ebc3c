package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LockName is the file in the data folder that an instance holds locked while it runs.
const LockName = ".lock"

// ErrLocked is matched (errors.Is) by LockDataDir's error when another instance holds the
// data folder.
var ErrLocked = errors.New("the data folder is in use by another Kleinbild")

// ErrReadOnly is matched (errors.Is) by LockDataDir's error when the data folder exists but
// cannot be written (a read-only disk or folder): the app then browses it read-only.
var ErrReadOnly = errors.New("the data folder cannot be written")

// LockDataDir takes the data folder dir (created if missing) for this process, so that two
// instances never rewrite each other's gallery index and settings. It returns the release
// function; while it is held, a second LockDataDir (any process) fails with ErrLocked. The
// lock is advisory (flock on Unix, LockFileEx on Windows) and ends with the process, so a
// crash leaves none behind. Where the platform has no such lock, LockDataDir always
// succeeds. A folder that exists but cannot be written is ErrReadOnly.
func LockDataDir(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	if err := CheckWritable(dir); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, LockName)
	if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("data folder lock %s is not a regular file: remove it", p)
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data folder lock: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%w (%s): close the other window first, or start with --data pointing at another folder", ErrLocked, dir)
		}
		return nil, fmt.Errorf("data folder lock %s: %w", p, err)
	}
	return func() { f.Close() }, nil
}

// CheckWritable returns an error wrapping ErrReadOnly when a file cannot be created in the
// existing folder dir for want of permission or on a read-only file system (nothing is left
// behind), else nil.
func CheckWritable(dir string) error {
	probe, err := os.CreateTemp(dir, ".write-probe-*")
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || readOnlyFS(err) {
			return fmt.Errorf("%w (%s): %v", ErrReadOnly, dir, errors.Unwrap(err))
		}
		return nil // other trouble is for the lock to report
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}
