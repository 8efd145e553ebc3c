// Package weights reads (and writes) safetensors checkpoints: the file format, dtypes and
// sharded folders. It maps files read-only and hands out tensors as views into the mapping;
// it does no model math.
//
// Files are validated completely when opened, so a corrupt or truncated file gives an error
// naming the file (and tensor) rather than a crash later. A file that is truncated or
// rewritten in place by another program while it is mapped cannot be detected that way: the
// operating system then faults on access. Every read of a mapping here (the header, a
// conversion, a dequantization) runs under Guard, which makes that fault an error; callers
// that read the views themselves (BF16, F16, Uint8, Bytes) guard their reads too.
package weights

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"kleinbild/internal/safefile"
)

// MaxHeaderBytes caps the JSON header of a safetensors file (the format's own limit is 100 MB).
const MaxHeaderBytes = 100 << 20

// ErrNotFound is wrapped by errors about missing tensors.
var ErrNotFound = errors.New("tensor not found")

// Tensor is one named tensor of a safetensors file: a typed view of bytes in the mapping.
// Its data stays on disk (page cache) until it is read. Views returned by its methods are
// read-only (writing to a mapped file's view faults) and must not be used after the file or
// checkpoint is closed.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	File  string // path of the file that holds it
	data  []byte
	quant *lazyQuant // set for a tensor kept packed (see Quant)
}

// Numel is the number of elements (1 for a scalar).
func (t *Tensor) Numel() int { return numel(t.Shape) }

// Bytes returns the raw little-endian bytes (a view into the mapping: do not modify).
// A packed tensor is dequantized first (nil if that fails: Float32 says why).
func (t *Tensor) Bytes() []byte {
	if t.load() != nil {
		return nil
	}
	return t.data
}

func (t *Tensor) typeErr(want DType) error {
	return fmt.Errorf("%s: tensor %q is %s, want %s", t.File, t.Name, t.DType, want)
}

// BF16 returns the tensor's bfloat16 bit patterns, without copying unless the data is not
// 2-byte aligned in memory.
func (t *Tensor) BF16() ([]uint16, error) {
	if t.DType != BF16 {
		return nil, t.typeErr(BF16)
	}
	return viewU16(t.data), nil
}

// F16 returns the tensor's IEEE half bit patterns, without copying unless the data is not
// 2-byte aligned in memory.
func (t *Tensor) F16() ([]uint16, error) {
	if t.DType != F16 {
		return nil, t.typeErr(F16)
	}
	return viewU16(t.data), nil
}

// Float32 returns the tensor as float32: a read-only view for (aligned) F32 tensors, a
// converted copy for BF16/F16. Integer tensors are an error.
func (t *Tensor) Float32() ([]float32, error) {
	if err := t.load(); err != nil {
		return nil, err
	}
	if t.DType == F32 {
		if v, ok := view[float32](t.data); ok {
			return v, nil
		}
	}
	out := make([]float32, t.Numel())
	if err := t.ReadFloat32(out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadFloat32 converts the tensor into dst (len(dst) must equal Numel).
func (t *Tensor) ReadFloat32(dst []float32) error {
	if len(dst) != t.Numel() {
		return fmt.Errorf("%s: tensor %q has %d elements, buffer has %d", t.File, t.Name, t.Numel(), len(dst))
	}
	if err := t.load(); err != nil {
		return err
	}
	return Guard(t.File, func() error { return t.convert(dst) })
}

// convert decodes the float data into dst (len(dst) == Numel), for ReadFloat32.
func (t *Tensor) convert(dst []float32) error {
	switch t.DType {
	case F32:
		if v, ok := view[float32](t.data); ok {
			copy(dst, v)
			return nil
		}
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.data[4*i:]))
		}
	case BF16:
		BF16ToF32(dst, viewU16(t.data))
	case F16:
		F16ToF32(dst, viewU16(t.data))
	default:
		return fmt.Errorf("%s: tensor %q is %s, not a float type", t.File, t.Name, t.DType)
	}
	return nil
}

// Int64 returns a copy of an I64 tensor.
func (t *Tensor) Int64() ([]int64, error) {
	if t.DType != I64 {
		return nil, t.typeErr(I64)
	}
	out := make([]int64, t.Numel())
	err := Guard(t.File, func() error {
		if v, ok := view[int64](t.data); ok {
			copy(out, v)
			return nil
		}
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(t.data[8*i:]))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Uint8 returns a view of a U8 tensor.
func (t *Tensor) Uint8() ([]uint8, error) {
	if t.DType != U8 {
		return nil, t.typeErr(U8)
	}
	return t.data, nil
}

// CheckShape returns an error naming the tensor and file unless its shape equals want.
func (t *Tensor) CheckShape(want ...int) error {
	if len(want) != len(t.Shape) {
		return fmt.Errorf("%s: tensor %q has shape %v, want %v", t.File, t.Name, t.Shape, want)
	}
	for i := range want {
		if want[i] != t.Shape[i] {
			return fmt.Errorf("%s: tensor %q has shape %v, want %v", t.File, t.Name, t.Shape, want)
		}
	}
	return nil
}

// hostLittleEndian reports whether views of little-endian file data can be used directly.
func hostLittleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// view reinterprets little-endian bytes as []E without copying. It reports false when the
// data is not aligned for E or the host is big-endian; callers then decode a copy.
func view[E float32 | int64 | uint16](b []byte) ([]E, bool) {
	var zero E
	size := int(unsafe.Sizeof(zero))
	if len(b) == 0 {
		return []E{}, true
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%uintptr(unsafe.Alignof(zero)) != 0 || !hostLittleEndian() {
		return nil, false
	}
	return unsafe.Slice((*E)(p), len(b)/size), true
}

// viewU16 reinterprets b as uint16 values; it copies when b is not 2-byte aligned.
func viewU16(b []byte) []uint16 {
	if v, ok := view[uint16](b); ok {
		return v
	}
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// File is one open, memory-mapped safetensors file.
type File struct {
	Path     string
	Metadata map[string]string
	data     []byte
	mapped   bool // data is a memory mapping of the whole file (may be advised away)
	closed   bool
	unmap    func() error
	// dropPages advises away the pages of the mapping a File made by NewMappedFile views.
	dropPages func() error
	tensors   map[string]*Tensor
	names     []string
}

// OpenFile maps a safetensors file and validates its header completely before returning.
func OpenFile(path string) (*File, error) {
	f, st, err := safefile.OpenRegular(path, 0) // a FIFO or device is refused, not mapped
	if err != nil {
		return nil, fmt.Errorf("open safetensors: %w", err)
	}
	defer f.Close()
	size := st.Size()
	if size < 8 {
		return nil, &FileError{Path: path, Err: fmt.Errorf("not a safetensors file: %d bytes, shorter than the 8-byte header length", size)}
	}
	if uint64(size) > math.MaxInt {
		return nil, &FileError{Path: path, Err: fmt.Errorf("%d bytes is too large to map on this platform", size)}
	}
	data, unmap, err := mapFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	var sf *File
	err = Guard(path, func() (err error) { sf, err = parse(path, data); return err })
	if err != nil {
		unmap()
		return nil, err
	}
	sf.unmap = unmap
	sf.mapped = mmapped
	return sf, nil
}

// ParseBytes parses a complete safetensors image held in memory (tests, fuzzing, small files).
// name is used in errors and as the tensors' File. The tensors are views of data.
func ParseBytes(name string, data []byte) (*File, error) {
	sf, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	sf.unmap = func() error { return nil }
	return sf, nil
}

// Names lists the tensor names, sorted.
func (f *File) Names() []string { return append([]string(nil), f.names...) }

// Tensor returns the named tensor or an error naming the file it looked in.
func (f *File) Tensor(name string) (*Tensor, error) {
	if f.closed {
		return nil, &FileError{Path: f.Path, Err: fmt.Errorf("tensor %q requested after the file was closed", name)}
	}
	if t, ok := f.tensors[name]; ok {
		return t, nil
	}
	return nil, &FileError{Path: f.Path, Err: fmt.Errorf("%w: %q", ErrNotFound, name)}
}

// Has reports whether the file holds the named tensor.
func (f *File) Has(name string) bool { _, ok := f.tensors[name]; return ok && !f.closed }

// Close unmaps the file. Tensors obtained from it must not be used afterwards.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	var err error
	if f.unmap != nil {
		err = f.unmap()
	}
	f.unmap, f.data = nil, nil
	return err
}

// release advises the kernel that the file's mapped pages may be dropped.
func (f *File) release() error {
	if f.closed {
		return nil
	}
	if f.dropPages != nil {
		return f.dropPages()
	}
	if !f.mapped {
		return nil
	}
	return dontNeed(f.data, f.data)
}
