package download

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"kleinbild/internal/safefile"
)

// lockName is the file in a model folder's state folder (StateDir) that a download holds
// locked while it writes to the folder.
const lockName = "lock"

// lockPoll is how often a download waiting for another one's lock tries again.
const lockPoll = 200 * time.Millisecond

// errLocked is tryLock's error when another process (or another download in this one)
// holds the lock.
var errLocked = errors.New("locked")

// lockFolder takes the model folder dir for one download, so that two downloads into the
// same folder never write the same part files (three concurrent `download -o SAME` all
// failed, with checksum mismatches or vanished part files). If another download holds it,
// lockFolder calls waiting once and waits until that one is done or ctx ends. The lock is
// advisory (flock on Unix) and ends with the process; where the platform has no such lock,
// it always succeeds at once. unlock releases it and removes the lock file, so that a
// finished download leaves only its manifest in the state folder, and the state folder if
// nothing else is in it: a download that failed before writing anything (no connection)
// leaves no sign of a partial download, which the app would offer to resume.
func lockFolder(ctx context.Context, dir string, waiting func()) (unlock func(), err error) {
	state := filepath.Join(dir, StateDir)
	p := filepath.Join(state, lockName)
	told := false
	for {
		// Made anew each time: the download holding the lock removes the folder when done.
		if err := os.MkdirAll(state, 0o755); err != nil {
			return nil, fmt.Errorf("model folder: %w", err)
		}
		f, err := openLock(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the folder went between MkdirAll and the open: make it again
		}
		if err != nil {
			return nil, fmt.Errorf("download lock: %w", err)
		}
		err = tryLock(f)
		if err == nil && holds(f, p) {
			return func() { release(f, p); os.Remove(state) }, nil
		}
		f.Close()
		if err != nil && !errors.Is(err, errLocked) {
			return nil, fmt.Errorf("download lock %s: %w", p, err)
		}
		if err != nil && !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("another download is writing to %s; stopped waiting for it: %w", dir, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

// openLock opens the lock file at p, creating it if missing (a FIFO or device there is
// refused by the guarded opener).
func openLock(p string) (*os.File, error) {
	f, _, err := safefile.OpenRegular(p, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.WriteFile(p, nil, 0o644); err == nil {
			f, _, err = safefile.OpenRegular(p, 0)
		}
	}
	return f, err
}

// holds reports whether the locked file f is still the one at p: the download that held it
// before removes it when done, so a lock taken on the removed file is no lock.
func holds(f *os.File, p string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(p)
	return err == nil && os.SameFile(a, b)
}
