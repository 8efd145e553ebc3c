// Package atomicfile writes files without ever leaving a half-written one: WriteAtomic for
// files the program owns, WriteOutput (and CheckOutput up front) for files the user names. Its
// reading twin is internal/safefile.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kleinbild/internal/safefile"
)

// TempMarker is in the name of every temporary file the atomic writers create
// (".NAME.tmp-kleinbild-123"), so that cleaners delete only their own leftovers.
const TempMarker = ".tmp-kleinbild-"

// IsTemp reports whether a file name is one of the atomic writers' temporaries.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, TempMarker)
}

// WriteAtomic creates path through a temporary file in the same folder: fill writes the
// content, then the file is flushed, synced and renamed into place. On any error (or a panic
// in fill) the temporary file is removed and an existing file at path is left untouched.
// Temporary files for path that a killed process left behind are removed first.
// The new file keeps the permissions of the file it replaces, or gets 0644.
//
// WriteAtomic is for files the program owns (settings, indexes, caches, downloads): whatever
// sits at path, a symlink included, is replaced by the new file. Files the user names go
// through WriteOutput.
func WriteAtomic(path string, fill func(w *bufio.Writer) error) error {
	return writeAtomic(path, path, 0, fill)
}

// WritePrivate is WriteAtomic for a file readable by its owner only (0600 from the start,
// whatever the file it replaces allowed): settings holding a token.
func WritePrivate(path string, fill func(w *bufio.Writer) error) error {
	return writeAtomic(path, path, 0o600, fill)
}

// writeAtomic is WriteAtomic on path with errors naming name; perm 0 keeps the replaced
// file's permissions (0644 for a new file).
func writeAtomic(name, path string, perm os.FileMode, fill func(w *bufio.Writer) error) error {
	dir := splitDir(path)
	if perm == 0 {
		perm = 0o644
		if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
			perm = st.Mode().Perm()
		}
	}
	sweepStale(dir, filepath.Base(path), time.Now())
	tmp, err := os.CreateTemp(dir, tempPattern(filepath.Base(path)))
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	done := false
	defer func() {
		if !done { // error or panic
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := fill(w); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	done = true
	syncDir(dir)
	return nil
}

// WriteOutput writes a file the user named (an output image, an embedding file) without
// destroying what sits at path: a symlink is followed to its final target (which need not
// exist yet), a regular or missing target is written atomically as by WriteAtomic (the
// temporary file beside the target), and a character device or pipe (/dev/null, /dev/stdout,
// a FIFO) is written to directly, left in place. A folder, block device or socket is refused.
// CheckOutput runs the same checks up front.
func WriteOutput(path string, fill func(w *bufio.Writer) error) error {
	target, st, err := resolveOutput(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if st != nil && isStream(st.Mode()) {
		return writeStream(path, target, fill)
	}
	return writeAtomic(path, target, 0, fill)
}

// CheckOutput reports, before any work is done, whether WriteOutput(path) can succeed: the
// target's folder exists and a file can be created in it, or the device or pipe opens for
// writing (a FIFO with no reader yet passes). Nothing is left behind.
//
// reads names the files the run reads (model files, references, input tensors): an output
// that resolves, after links, to one of them (the same file, hard links included) is
// refused with a message naming both paths, so a run never replaces its own input.
func CheckOutput(path string, reads ...string) error {
	target, st, err := resolveOutput(path)
	if err != nil {
		return fmt.Errorf("output %s: %w", path, err)
	}
	if st != nil && st.Mode().IsRegular() {
		for _, r := range reads {
			if rst, err := os.Stat(r); err == nil && os.SameFile(st, rst) {
				if r == path {
					return fmt.Errorf("output %s is also an input of this run: choose another output file", path)
				}
				return fmt.Errorf("output %s is the file %s, which this run reads: choose another output file", path, r)
			}
		}
	}
	if st != nil && isStream(st.Mode()) {
		if err := safefile.ProbeWrite(target); err != nil {
			return fmt.Errorf("output %s: %w", path, err)
		}
		return nil
	}
	dir := splitDir(target)
	switch dst, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("output folder %s does not exist", dir)
	case err != nil:
		return fmt.Errorf("output %s: %w", path, err)
	case !dst.IsDir():
		return fmt.Errorf("output folder %s is not a folder", dir)
	}
	tmp, err := os.CreateTemp(dir, tempPattern(filepath.Base(target)))
	if err != nil {
		return fmt.Errorf("output %s: cannot create a file in %s: %w", path, dir, errors.Unwrap(err))
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}

// maxSymlinks bounds the links resolveOutput follows (as the kernel's ELOOP does).
const maxSymlinks = 40

// resolveOutput follows symlinks from path to the final target. st is the target's Lstat
// (nil when it does not exist); only regular files, character devices and pipes are accepted.
func resolveOutput(path string) (target string, st fs.FileInfo, err error) {
	p := path
	for i := 0; ; i++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		m := fi.Mode()
		if m&fs.ModeSymlink == 0 {
			if !m.IsRegular() && (!isStream(m) || m&fs.ModeSocket != 0) {
				return "", nil, fmt.Errorf("%s is %s", p, safefile.Describe(m))
			}
			return p, fi, nil
		}
		if i == maxSymlinks {
			return "", nil, fmt.Errorf("more than %d levels of symbolic links", maxSymlinks)
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", nil, err
		}
		if magicLink(link) {
			// /dev/stdout → /proc/self/fd/1 → "pipe:[1234]": only the kernel can follow it.
			if st, err := os.Stat(p); err == nil && isStream(st.Mode()) {
				return p, st, nil
			}
			return "", nil, fmt.Errorf("%s leads to %s, which cannot be written", path, link)
		}
		if !filepath.IsAbs(link) {
			// Not filepath.Join: cleaning "dir/../x" lexically is wrong when dir is a symlink.
			link = splitDir(p) + string(filepath.Separator) + link
		}
		p = link
	}
}

// splitDir is the folder part of path without lexical cleaning (see resolveOutput).
func splitDir(path string) string {
	vol := filepath.VolumeName(path)
	rest := path[len(vol):]
	i := strings.LastIndexFunc(rest, func(r rune) bool { return os.IsPathSeparator(uint8(r)) })
	switch {
	case i < 0:
		return vol + "."
	case i == 0:
		return vol + rest[:1]
	}
	return vol + rest[:i]
}

// isStream reports the kinds WriteOutput writes to in place: character devices, pipes and
// (reached through /proc/self/fd, as /dev/stdout may be) sockets.
func isStream(m fs.FileMode) bool {
	return m&(fs.ModeNamedPipe|fs.ModeSocket) != 0 || (m&fs.ModeDevice != 0 && m&fs.ModeCharDevice != 0)
}

// magicLink reports a /proc/PID/fd link target that names no file ("pipe:[1234]").
func magicLink(target string) bool {
	return strings.HasPrefix(target, "pipe:[") || strings.HasPrefix(target, "socket:[") ||
		strings.HasPrefix(target, "anon_inode:")
}

// pathless drops an *fs.PathError layer naming path (the caller's message names it).
func pathless(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// writeStream writes to the device or pipe target directly (a pipe waits for its reader).
func writeStream(name, target string, fill func(w *bufio.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !isStream(st.Mode()) {
		// Swapped for something else since the check: do not write over a file in place.
		return fmt.Errorf("write %s: %s changed while being opened", name, target)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fill(w); err != nil {
		return fmt.Errorf("write %s: %w", name, pathless(err, target))
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", name, pathless(err, target))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, pathless(err, target))
	}
	return nil
}

// syncDir makes a rename in dir durable where the platform supports syncing a folder; it is
// best effort (the new file is complete either way).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
