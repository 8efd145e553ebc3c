package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LockName is the file in the data folder that an instance holds locked while it runs.
const LockName = ".lock"

// ErrLocked is matched (errors.Is) by LockDataDir's error when another instance holds the
// data folder.
var ErrLocked = errors.New("the data folder is in use by another Kleinbild")

// LockDataDir takes the data folder dir (created if missing) for this process, so that two
// instances never rewrite each other's gallery index and settings. It returns the release
// function; while it is held, a second LockDataDir (any process) fails with ErrLocked. The
// lock is advisory (flock on Unix) and ends with the process, so a crash leaves none behind.
// Where the platform has no such lock, LockDataDir always succeeds.
func LockDataDir(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
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
