package download

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// loadPart loads the saved state of t's partial download, discarding (with the part file)
// a state that is unreadable, belongs to another version of the file or does not match the
// part file. It creates nothing.
func (d *download) loadPart(t *task) {
	st, err := readPartState(t.stateAt)
	keep := err == nil && st.matches(t.f)
	if keep {
		if fi, err := os.Stat(t.part); err != nil || !fi.Mode().IsRegular() || fi.Size() != t.f.Size {
			keep = false
		}
	}
	if !keep {
		st = newPartState(t.f)
		os.Remove(t.stateAt)
		os.Remove(t.part)
	}
	t.st = st
}

// openPart opens (or creates) the part file of t, sized to the file (loadPart ran before).
func (d *download) openPart(t *task) error {
	if err := os.MkdirAll(filepath.Dir(t.part), 0o755); err != nil {
		return d.writeError(t, err)
	}
	pf, err := d.o.openPart(t.part)
	if err != nil {
		return d.writeError(t, err)
	}
	t.pf = pf
	if fi, err := pf.Stat(); err != nil || fi.Size() != t.f.Size {
		// Sparse: the space is taken as data arrives.
		if err := pf.Truncate(t.f.Size); err != nil {
			return d.writeError(t, err)
		}
	}
	return nil
}

// checkSpace fails early when the folder's filesystem cannot hold what is left to fetch.
// Sizes are bounded by parseListing, so the sum cannot overflow.
func (d *download) checkSpace(tasks []*task) error {
	var need, most int64
	var largest *task
	for _, t := range tasks {
		n := t.f.Size - t.st.doneBytes()
		need += n
		if largest == nil || n > most {
			largest, most = t, n
		}
	}
	free, ok := diskFree(d.dir)
	const margin = 64 << 20
	if !ok || need == 0 || uint64(need)+margin <= free {
		return nil
	}
	return fmt.Errorf("%w: %s needs %s more (the largest, %s, %d bytes) but only %s are free on the disk holding %s",
		ErrDiskFull, d.l.Repo, FormatBytes(need), largest.f.Path, most, FormatBytes(int64(min(free, 1<<62))), d.dir)
}

// writeError explains a failed write; a full disk keeps the partial state for a later resume.
func (d *download) writeError(t *task, err error) error {
	if isDiskFull(err) {
		return fmt.Errorf("%w while writing %s (%v): free some space and run the download again; the data received so far is kept in %s", ErrDiskFull, t.f.Path, err, filepath.Join(d.dir, StateDir))
	}
	return fmt.Errorf("write %s: %w", t.f.Path, err)
}

// rangeDone records a completed range; the last one finalizes the file.
func (d *download) rangeDone(ctx context.Context, t *task, lo, hi int64) error {
	t.mu.Lock()
	t.st.add(lo, hi)
	t.pending--
	t.dirty = true
	last := t.pending == 0
	var err error
	if last || time.Since(t.lastSave) >= stateSaveInterval {
		err = d.saveLocked(t)
	}
	t.mu.Unlock()
	if err != nil {
		return permanent(err)
	}
	if last {
		return d.finalize(ctx, t)
	}
	return nil
}

// saveLocked syncs the part file, then writes the state (so that the state never claims
// bytes that are not on disk). t.mu must be held.
func (d *download) saveLocked(t *task) error {
	if !t.dirty || t.pf == nil {
		return nil
	}
	if err := t.pf.Sync(); err != nil {
		return d.writeError(t, err)
	}
	if err := writeJSON(t.stateAt, &t.st); err != nil {
		return d.writeError(t, err)
	}
	t.dirty = false
	t.lastSave = time.Now()
	return nil
}

// closeTask saves and closes t's part file; a file that changed on the server loses its
// partial data instead. Safe to call twice.
func (d *download) closeTask(t *task) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var err error
	if t.pf != nil {
		if !t.changed {
			err = d.saveLocked(t)
		}
		if cerr := t.pf.Close(); err == nil && cerr != nil {
			err = d.writeError(t, cerr)
		}
		t.pf = nil
	}
	if t.changed {
		os.Remove(t.part)
		os.Remove(t.stateAt)
	}
	return err
}

// finalize verifies a complete part file and renames it to its final name.
func (d *download) finalize(ctx context.Context, t *task) error {
	t.mu.Lock()
	pf := t.pf
	t.pf = nil
	t.mu.Unlock()
	if pf != nil {
		if err := pf.Close(); err != nil {
			return permanent(d.writeError(t, err))
		}
	}
	if err := checkFile(ctx, t.part, t.f, nil); err != nil {
		if errors.Is(err, ErrChecksum) {
			os.Remove(t.part)
			os.Remove(t.stateAt)
			d.rep.done.Add(-t.f.Size)
			return permanent(fmt.Errorf("%w; the downloaded data was discarded: run the download again", err))
		}
		return permanent(err)
	}
	if err := checkContained(d.dir, t.f.Path); err != nil {
		return permanent(err)
	}
	if err := os.MkdirAll(filepath.Dir(t.final), 0o755); err != nil {
		return permanent(d.writeError(t, err))
	}
	if err := os.Rename(t.part, t.final); err != nil {
		return permanent(fmt.Errorf("move %s into place: %w", t.f.Path, err))
	}
	syncDir(filepath.Dir(t.final))
	os.Remove(t.stateAt)
	d.rep.files.Add(1)
	return permanent(d.recordVerified(t.f, t.final))
}

// recordVerified notes a verified file in the manifest and saves it.
func (d *download) recordVerified(f RemoteFile, path string) error {
	d.manMu.Lock()
	defer d.manMu.Unlock()
	d.man.markVerified(f, path)
	if err := writeJSON(manifestPath(d.dir), d.man); err != nil {
		return fmt.Errorf("save download manifest: %w", err)
	}
	return nil
}

// cleanStateDir removes everything in the state folder but the manifest and the lock (held
// by this download: see lockFolder) once all files are in place (stale parts of files that
// are no longer listed included).
func (d *download) cleanStateDir() {
	root := filepath.Join(d.dir, StateDir)
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() != manifestName && e.Name() != lockName {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// verifyBytes checks data against f's size and git blob id (or sha256).
func verifyBytes(f RemoteFile, data []byte) error {
	if int64(len(data)) != f.Size {
		return &ChecksumError{Path: f.Path, Detail: fmt.Sprintf("received %d bytes, the listing says %d", len(data), f.Size)}
	}
	got, want, kind := "", "", ""
	switch {
	case f.SHA256 != "":
		got, want, kind = sha256Hex(data), f.SHA256, "sha256"
	case f.BlobID != "":
		got, want, kind = gitBlobID(data), f.BlobID, "git blob id"
	default:
		return nil
	}
	if got != want {
		return &ChecksumError{Path: f.Path, Detail: fmt.Sprintf("%s %s, expected %s", kind, got, want)}
	}
	return nil
}

// syncDir makes a rename durable where folders can be synced (best effort).
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync()
		f.Close()
	}
}
