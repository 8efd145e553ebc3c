package weights

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"kleinbild/internal/safefile"
)

// OutTensor is a tensor to write: exactly one of F32, BF16, I64, U8 or F16 is set (a
// non-nil empty slice counts as set; with none set the tensor is an empty U8 tensor).
type OutTensor struct {
	Name  string
	Shape []int
	F32   []float32
	BF16  []uint16
	I64   []int64
	U8    []uint8
	F16   []uint16 // IEEE half bit patterns
}

// dtype returns the tensor's dtype and element count, or an error if several data fields
// are set.
func (t OutTensor) dtype() (DType, int, error) {
	dt, n, set := U8, len(t.U8), 0
	if t.U8 != nil {
		set++
	}
	if t.F32 != nil {
		dt, n, set = F32, len(t.F32), set+1
	}
	if t.BF16 != nil {
		dt, n, set = BF16, len(t.BF16), set+1
	}
	if t.I64 != nil {
		dt, n, set = I64, len(t.I64), set+1
	}
	if t.F16 != nil {
		dt, n, set = F16, len(t.F16), set+1
	}
	if set > 1 {
		return 0, 0, fmt.Errorf("tensor %q has %d data fields set, want one", t.Name, set)
	}
	return dt, n, nil
}

// bytes returns the tensor's data as little-endian bytes (a view on little-endian hosts).
func (t OutTensor) bytes(dt DType) []byte {
	switch dt {
	case F32:
		return leBytes(t.F32, func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) })
	case BF16:
		return leBytes(t.BF16, binary.LittleEndian.PutUint16)
	case F16:
		return leBytes(t.F16, binary.LittleEndian.PutUint16)
	case I64:
		return leBytes(t.I64, func(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) })
	}
	return t.U8
}

func leBytes[E float32 | uint16 | int64](s []E, put func([]byte, E)) []byte {
	size := int(unsafe.Sizeof(*new(E)))
	if len(s) == 0 {
		return nil
	}
	if hostLittleEndian() {
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*size)
	}
	b := make([]byte, len(s)*size)
	for i, v := range s {
		put(b[i*size:], v)
	}
	return b
}

// WriteFile writes tensors as a safetensors file with WriteOutput: atomically (a temporary
// file in the target's folder, synced, then renamed into place) over a regular or missing
// file, through symlinks, directly to a device or pipe. Tensors are stored sorted by name; the header is
// padded with spaces to a multiple of 8 bytes so that the data section is 8-byte aligned.
func WriteFile(path string, tensors []OutTensor, metadata map[string]string) error {
	fill, err := encodeFile(path, tensors, metadata)
	if err != nil {
		return err
	}
	return WriteOutput(path, fill)
}

// WriteOwnedFile writes tensors as WriteFile does, but with WriteAtomic: for files the
// program owns (caches), where a symlink at path is replaced, never followed.
func WriteOwnedFile(path string, tensors []OutTensor, metadata map[string]string) error {
	fill, err := encodeFile(path, tensors, metadata)
	if err != nil {
		return err
	}
	return WriteAtomic(path, fill)
}

// encodeFile checks tensors and metadata and returns the writer of their safetensors file.
func encodeFile(path string, tensors []OutTensor, metadata map[string]string) (func(w *bufio.Writer) error, error) {
	ts := slices.Clone(tensors)
	slices.SortFunc(ts, func(a, b OutTensor) int { return strings.Compare(a.Name, b.Name) })
	header := map[string]any{}
	for k, v := range metadata {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, fmt.Errorf("write %s: metadata %q is not valid UTF-8", path, k)
		}
	}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	dts := make([]DType, len(ts))
	var off uint64
	for i, t := range ts {
		switch {
		case t.Name == "__metadata__":
			return nil, fmt.Errorf("write %s: %q is reserved and cannot name a tensor", path, t.Name)
		case !utf8.ValidString(t.Name):
			return nil, fmt.Errorf("write %s: tensor name %q is not valid UTF-8", path, t.Name)
		case i > 0 && ts[i-1].Name == t.Name:
			return nil, fmt.Errorf("write %s: duplicate tensor %q", path, t.Name)
		}
		dt, n, err := t.dtype()
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		dims := make([]int64, len(t.Shape))
		for j, d := range t.Shape {
			dims[j] = int64(d)
		}
		size, err := shapeBytes(dims, dt)
		if err != nil {
			return nil, fmt.Errorf("write %s: tensor %q: %w", path, t.Name, err)
		}
		if uint64(n) != size/uint64(dt.Size()) {
			return nil, fmt.Errorf("write %s: tensor %q has %d values for shape %v", path, t.Name, n, t.Shape)
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		header[t.Name] = map[string]any{"dtype": dt.String(), "shape": shape, "data_offsets": []uint64{off, off + size}}
		dts[i] = dt
		off += size
	}
	hj, err := json.Marshal(header)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	return func(w *bufio.Writer) error {
		var lb [8]byte
		binary.LittleEndian.PutUint64(lb[:], uint64(len(hj)))
		if _, err := w.Write(lb[:]); err != nil {
			return err
		}
		if _, err := w.Write(hj); err != nil {
			return err
		}
		for i, t := range ts {
			if _, err := w.Write(t.bytes(dts[i])); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

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
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+TempMarker+"*")
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
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+TempMarker+"*")
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
