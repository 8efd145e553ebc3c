// Package weights reads (and writes) safetensors checkpoints: the file format, dtypes and
// sharded folders. It maps files read-only and hands out tensors as views into the mapping;
// it does no model math.
package weights

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"unsafe"
)

// MaxHeaderBytes caps the JSON header of a safetensors file (the format's own limit is 100 MB).
const MaxHeaderBytes = 100 << 20

// Tensor is one named tensor of a safetensors file: a typed view of bytes in the mapping.
// Its data stays on disk (page cache) until it is read.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	File  string // path of the file that holds it
	data  []byte
}

// Numel is the number of elements (1 for a scalar).
func (t *Tensor) Numel() int { return numel(t.Shape) }

// Bytes returns the raw little-endian bytes (a view into the mapping: do not modify).
func (t *Tensor) Bytes() []byte { return t.data }

func (t *Tensor) typeErr(want DType) error {
	return fmt.Errorf("%s: tensor %q is %s, want %s", t.File, t.Name, t.DType, want)
}

// BF16 returns the tensor's bfloat16 bit patterns without copying.
func (t *Tensor) BF16() ([]uint16, error) {
	if t.DType != BF16 {
		return nil, t.typeErr(BF16)
	}
	return viewU16(t.data), nil
}

// F16 returns the tensor's IEEE half bit patterns without copying.
func (t *Tensor) F16() ([]uint16, error) {
	if t.DType != F16 {
		return nil, t.typeErr(F16)
	}
	return viewU16(t.data), nil
}

// Float32 returns the tensor as float32: a view for F32 tensors, a converted copy for BF16/F16.
// Integer tensors are an error.
func (t *Tensor) Float32() ([]float32, error) {
	switch t.DType {
	case F32:
		if uintptr(unsafe.Pointer(unsafe.SliceData(t.data)))%4 == 0 || len(t.data) == 0 {
			return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(t.data))), len(t.data)/4), nil
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
	switch t.DType {
	case F32:
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
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.data[8*i:]))
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

// viewU16 reinterprets b as uint16 values; it copies when b is not 2-byte aligned.
func viewU16(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%2 == 0 {
		return unsafe.Slice((*uint16)(p), len(b)/2)
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
	unmap    func() error
	tensors  map[string]*Tensor
	names    []string
}

// OpenFile maps a safetensors file and validates its header completely before returning.
func OpenFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open safetensors: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open safetensors %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("open safetensors %s: is a directory", path)
	}
	if st.Size() < 8 {
		return nil, fmt.Errorf("%s: not a safetensors file: %d bytes, shorter than the 8-byte header length", path, st.Size())
	}
	data, unmap, err := mapFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	sf, err := parse(path, data)
	if err != nil {
		unmap()
		return nil, err
	}
	sf.unmap = unmap
	return sf, nil
}

// ParseBytes parses a complete safetensors image held in memory (tests, fuzzing, small files).
func ParseBytes(name string, data []byte) (*File, error) {
	sf, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	sf.unmap = func() error { return nil }
	return sf, nil
}

type headerEntry struct {
	DType       string   `json:"dtype"`
	Shape       []int64  `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"`
}

func parse(path string, data []byte) (*File, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("%s: not a safetensors file: %d bytes", path, len(data))
	}
	hlen := binary.LittleEndian.Uint64(data[:8])
	if hlen > MaxHeaderBytes {
		return nil, fmt.Errorf("%s: header length %d exceeds the %d-byte limit (corrupt or not safetensors)", path, hlen, MaxHeaderBytes)
	}
	if hlen > uint64(len(data)-8) {
		return nil, fmt.Errorf("%s: header length %d runs past the end of the %d-byte file (truncated?)", path, hlen, len(data))
	}
	hdr := data[8 : 8+hlen]
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, fmt.Errorf("%s: malformed JSON header: %w", path, err)
	}
	body := data[8+hlen:]
	sf := &File{Path: path, data: data, tensors: make(map[string]*Tensor, len(raw))}
	type span struct {
		lo, hi uint64
		name   string
	}
	var spans []span
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &sf.Metadata); err != nil {
				return nil, fmt.Errorf("%s: __metadata__ must map strings to strings: %w", path, err)
			}
			continue
		}
		var e headerEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: malformed header entry: %w", path, name, err)
		}
		dt, err := ParseDType(e.DType)
		if err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", path, name, err)
		}
		if len(e.DataOffsets) != 2 {
			return nil, fmt.Errorf("%s: tensor %q: data_offsets must have 2 entries, has %d", path, name, len(e.DataOffsets))
		}
		lo, hi := e.DataOffsets[0], e.DataOffsets[1]
		if lo > hi || hi > uint64(len(body)) {
			return nil, fmt.Errorf("%s: tensor %q: byte range [%d, %d) outside the %d-byte data section (truncated?)", path, name, lo, hi, len(body))
		}
		shape := make([]int, len(e.Shape))
		n := uint64(1)
		for i, d := range e.Shape {
			if d < 0 || d > math.MaxInt32 {
				return nil, fmt.Errorf("%s: tensor %q: invalid dimension %d in shape %v", path, name, d, e.Shape)
			}
			shape[i] = int(d)
			if d != 0 && n > math.MaxInt64/uint64(d)/8 {
				return nil, fmt.Errorf("%s: tensor %q: shape %v is too large", path, name, e.Shape)
			}
			n *= uint64(d)
		}
		if want := n * uint64(dt.Size()); hi-lo != want {
			return nil, fmt.Errorf("%s: tensor %q: shape %v of %s needs %d bytes, data_offsets give %d", path, name, e.Shape, dt, want, hi-lo)
		}
		sf.tensors[name] = &Tensor{Name: name, DType: dt, Shape: shape, File: path, data: body[lo:hi:hi]}
		sf.names = append(sf.names, name)
		if hi > lo {
			spans = append(spans, span{lo, hi, name})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			return nil, fmt.Errorf("%s: tensors %q and %q overlap in the data section", path, spans[i-1].name, spans[i].name)
		}
	}
	sort.Strings(sf.names)
	return sf, nil
}

// Names lists the tensor names, sorted.
func (f *File) Names() []string { return append([]string(nil), f.names...) }

// Tensor returns the named tensor or an error naming the file it looked in.
func (f *File) Tensor(name string) (*Tensor, error) {
	if t, ok := f.tensors[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("%s: %w: %q", f.Path, ErrNotFound, name)
}

// Has reports whether the file holds the named tensor.
func (f *File) Has(name string) bool { _, ok := f.tensors[name]; return ok }

// Close unmaps the file. Tensors obtained from it must not be used afterwards.
func (f *File) Close() error {
	if f.unmap == nil {
		return nil
	}
	err := f.unmap()
	f.unmap = nil
	f.data = nil
	return err
}

// ErrNotFound is wrapped by errors about missing tensors.
var ErrNotFound = errors.New("tensor not found")
