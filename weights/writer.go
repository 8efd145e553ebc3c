package weights

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"kleinbild/internal/atomicfile"
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

// WriteFile writes tensors as a safetensors file with atomicfile.WriteOutput: atomically (a temporary
// file in the target's folder, synced, then renamed into place) over a regular or missing
// file, through symlinks, directly to a device or pipe. Tensors are stored sorted by name; the header is
// padded with spaces to a multiple of 8 bytes so that the data section is 8-byte aligned.
func WriteFile(path string, tensors []OutTensor, metadata map[string]string) error {
	fill, err := encodeFile(path, tensors, metadata)
	if err != nil {
		return err
	}
	return atomicfile.WriteOutput(path, fill)
}

// WriteOwnedFile writes tensors as WriteFile does, but with WriteAtomic: for files the
// program owns (caches), where a symlink at path is replaced, never followed.
func WriteOwnedFile(path string, tensors []OutTensor, metadata map[string]string) error {
	fill, err := encodeFile(path, tensors, metadata)
	if err != nil {
		return err
	}
	return atomicfile.WriteAtomic(path, fill)
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
