package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Limits on what a header may declare. Real files stay far below them (a Qwen3 GGUF has about
// 400 tensors and 40 keys; its longest string, the chat template, a few KiB); every count is
// also bounded by the bytes left in the file before anything is allocated.
const (
	MaxTensors     = 1 << 20
	MaxKV          = 1 << 20
	MaxNameBytes   = 1 << 16 // a key or tensor name
	MaxStringBytes = 1 << 26 // a string value
	MaxDims        = 4       // ggml's GGML_MAX_DIMS
	// DefaultAlignment is the data alignment when general.alignment is absent.
	DefaultAlignment = 32
)

// ErrFormat is matched (errors.Is) by every error about a malformed or unsupported file.
var ErrFormat = errors.New("invalid GGUF file")

// reader decodes little-endian fields from data; every read is bounds-checked.
type reader struct {
	data []byte
	pos  int
}

func (r *reader) need(n int, what string) ([]byte, error) {
	if n < 0 || n > len(r.data)-r.pos {
		return nil, fmt.Errorf("%w: truncated at byte %d reading %s (%d bytes needed, %d left)", ErrFormat, r.pos, what, n, len(r.data)-r.pos)
	}
	b := r.data[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

func (r *reader) u32(what string) (uint32, error) {
	b, err := r.need(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u64(what string) (uint64, error) {
	b, err := r.need(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a u64 count of items of at least minSize bytes each, refusing more than limit
// or more than the rest of the data could hold.
func (r *reader) count(what string, limit, minSize int) (int, error) {
	n, err := r.u64(what)
	if err != nil {
		return 0, err
	}
	if n > uint64(limit) {
		return 0, fmt.Errorf("%w: %s %d is over the limit of %d", ErrFormat, what, n, limit)
	}
	if left := uint64(len(r.data) - r.pos); minSize > 0 && n > left/uint64(minSize) {
		return 0, fmt.Errorf("%w: %s %d cannot fit in the %d bytes left", ErrFormat, what, n, left)
	}
	return int(n), nil
}

// strBytes reads a GGUF string (u64 length + bytes) of at most limit bytes, as a view.
func (r *reader) strBytes(limit int) ([]byte, error) {
	n, err := r.u64("string length")
	if err != nil {
		return nil, err
	}
	if n > uint64(limit) {
		return nil, fmt.Errorf("%w: string of %d bytes at byte %d is over the limit of %d", ErrFormat, n, r.pos-8, limit)
	}
	return r.need(int(n), "string")
}

func (r *reader) str(limit int) (string, error) {
	b, err := r.strBytes(limit)
	return string(b), err
}

// header is everything before the data section.
type header struct {
	version   uint32
	kv        map[string]Value
	keys      []string // in file order
	tensors   []*Tensor
	alignment uint64
	dataStart uint64
}

// parseHeader decodes and checks the header of a GGUF image (magic, version, metadata,
// tensor infos) and the placement of every tensor in data.
func parseHeader(data []byte) (*header, error) {
	r := &reader{data: data}
	magic, err := r.need(4, "magic")
	if err != nil {
		return nil, err
	}
	if string(magic) != "GGUF" {
		return nil, fmt.Errorf("%w: no GGUF magic (starts with %q)", ErrFormat, magic)
	}
	h := &header{kv: map[string]Value{}, alignment: DefaultAlignment}
	if h.version, err = r.u32("version"); err != nil {
		return nil, err
	}
	switch v := h.version; {
	case v == 2 || v == 3:
	case v == 1:
		return nil, fmt.Errorf("%w: GGUF version 1 is not supported (only 2 and 3)", ErrFormat)
	case v&0xffff == 0 && v>>16 != 0:
		return nil, fmt.Errorf("%w: big-endian GGUF files are not supported", ErrFormat)
	default:
		return nil, fmt.Errorf("%w: unknown GGUF version %d", ErrFormat, v)
	}
	nTensors, err := r.count("tensor count", MaxTensors, 24)
	if err != nil {
		return nil, err
	}
	nKV, err := r.count("metadata count", MaxKV, 13)
	if err != nil {
		return nil, err
	}
	if err := h.readKV(r, nKV); err != nil {
		return nil, err
	}
	if err := h.readTensorInfos(r, nTensors); err != nil {
		return nil, err
	}
	if err := h.place(uint64(r.pos), uint64(len(data))); err != nil {
		return nil, err
	}
	for _, t := range h.tensors {
		t.data = data[h.dataStart+t.Offset : h.dataStart+t.Offset+uint64(t.Size)]
	}
	return h, nil
}

func (h *header) readKV(r *reader, n int) error {
	h.keys = make([]string, 0, n)
	for i := range n {
		key, err := r.str(MaxNameBytes)
		if err != nil {
			return fmt.Errorf("metadata key %d: %w", i, err)
		}
		if _, dup := h.kv[key]; dup {
			return fmt.Errorf("%w: duplicate metadata key %q", ErrFormat, key)
		}
		t, err := r.u32("value type")
		if err != nil {
			return fmt.Errorf("metadata %q: %w", key, err)
		}
		v, err := readValue(r, ValueType(t))
		if err != nil {
			return fmt.Errorf("metadata %q: %w", key, err)
		}
		h.kv[key] = v
		h.keys = append(h.keys, key)
	}
	if v, ok := h.kv["general.alignment"]; ok {
		a, isU := v.Uint()
		if v.Type != TypeUint32 || !isU || a == 0 || a&(a-1) != 0 {
			return fmt.Errorf("%w: general.alignment must be a UINT32 power of two, got %s %s", ErrFormat, v.Type, v)
		}
		h.alignment = a
	}
	return nil
}

// readValue decodes one value of type t; arrays are walked (checked) but kept encoded.
func readValue(r *reader, t ValueType) (Value, error) {
	v := Value{Type: t}
	switch {
	case t == TypeString:
		s, err := r.str(MaxStringBytes)
		v.str = s
		return v, err
	case t == TypeArray:
		return readArray(r)
	case t.size() > 0:
		b, err := r.need(t.size(), t.String())
		if err != nil {
			return v, err
		}
		v.num = scalarBits(t, b)
		return v, nil
	}
	return v, fmt.Errorf("%w: unknown value type %d", ErrFormat, uint32(t))
}

func readArray(r *reader) (Value, error) {
	et, err := r.u32("array element type")
	if err != nil {
		return Value{}, err
	}
	v := Value{Type: TypeArray, Elem: ValueType(et)}
	size := v.Elem.size()
	switch {
	case v.Elem == TypeString:
		size = 8 // at least the length of each string
	case v.Elem == TypeArray:
		return v, fmt.Errorf("%w: nested arrays are not supported", ErrFormat)
	case size == 0:
		return v, fmt.Errorf("%w: unknown array element type %d", ErrFormat, et)
	}
	if v.Len, err = r.count("array length", maxInt/8, size); err != nil {
		return v, err
	}
	start := r.pos
	if v.Elem == TypeString {
		for i := range v.Len {
			if _, err := r.strBytes(MaxStringBytes); err != nil {
				return v, fmt.Errorf("array element %d: %w", i, err)
			}
		}
	} else if _, err := r.need(v.Len*size, "array"); err != nil {
		return v, err
	}
	v.raw = r.data[start:r.pos]
	return v, nil
}

func (h *header) readTensorInfos(r *reader, n int) error {
	h.tensors = make([]*Tensor, 0, n)
	seen := make(map[string]bool, n)
	for i := range n {
		t, err := readTensorInfo(r)
		if err != nil {
			return fmt.Errorf("tensor info %d: %w", i, err)
		}
		if seen[t.Name] {
			return fmt.Errorf("%w: duplicate tensor %q", ErrFormat, t.Name)
		}
		seen[t.Name] = true
		h.tensors = append(h.tensors, t)
	}
	return nil
}

func readTensorInfo(r *reader) (*Tensor, error) {
	name, err := r.str(MaxNameBytes)
	if err != nil {
		return nil, err
	}
	t := &Tensor{Name: name}
	nd, err := r.u32("dimension count")
	if err != nil {
		return nil, err
	}
	if nd > MaxDims {
		return nil, fmt.Errorf("%w: tensor %q has %d dimensions (at most %d)", ErrFormat, name, nd, MaxDims)
	}
	numel := 1
	for range nd {
		d, err := r.u64("dimension")
		if err != nil {
			return nil, err
		}
		if d == 0 {
			return nil, fmt.Errorf("%w: tensor %q has a zero dimension (ne %v)", ErrFormat, name, append(t.Dims, d))
		}
		if d > uint64(maxInt) || numel > maxInt/int(d) {
			return nil, fmt.Errorf("%w: tensor %q: dimensions %v... overflow", ErrFormat, name, append(t.Dims, d))
		}
		numel *= int(d)
		t.Dims = append(t.Dims, d)
	}
	ty, err := r.u32("tensor type")
	if err != nil {
		return nil, err
	}
	t.Type = Type(ty)
	if !t.Type.Known() {
		return nil, fmt.Errorf("%w: tensor %q has unknown ggml type %d", ErrFormat, name, ty)
	}
	if t.Offset, err = r.u64("tensor offset"); err != nil {
		return nil, err
	}
	rowLen := 1
	if nd > 0 {
		rowLen = int(t.Dims[0])
	}
	rowBytes, err := t.Type.RowBytes(rowLen)
	if err != nil {
		return nil, fmt.Errorf("%w: tensor %q (ne %v): %v", ErrFormat, name, t.Dims, err)
	}
	rows := 0
	if rowLen != 0 {
		rows = numel / rowLen
	}
	if rowBytes != 0 && rows > maxInt/rowBytes {
		return nil, fmt.Errorf("%w: tensor %q (ne %v) is too large", ErrFormat, name, t.Dims)
	}
	t.Size = rows * rowBytes
	t.Shape = make([]int, nd)
	for i, d := range t.Dims {
		t.Shape[int(nd)-1-i] = int(d)
	}
	return t, nil
}

// place computes the data section start (headerEnd rounded up to the alignment) and checks
// that every tensor is aligned, inside the file and overlaps no other.
func (h *header) place(headerEnd, fileSize uint64) error {
	a := h.alignment
	if headerEnd > ^uint64(0)-a {
		return fmt.Errorf("%w: alignment %d overflows", ErrFormat, a)
	}
	h.dataStart = (headerEnd + a - 1) / a * a
	byOffset := slices.Clone(h.tensors)
	slices.SortFunc(byOffset, func(x, y *Tensor) int {
		switch {
		case x.Offset < y.Offset:
			return -1
		case x.Offset > y.Offset:
			return 1
		}
		return 0
	})
	end := uint64(0)
	for _, t := range byOffset {
		if t.Offset%a != 0 {
			return fmt.Errorf("%w: tensor %q: offset %d is not a multiple of the alignment %d", ErrFormat, t.Name, t.Offset, a)
		}
		if t.Offset < end {
			return fmt.Errorf("%w: tensor %q at offset %d overlaps the tensor before it (ends at %d)", ErrFormat, t.Name, t.Offset, end)
		}
		avail := uint64(0)
		if fileSize > h.dataStart {
			avail = fileSize - h.dataStart
		}
		if t.Offset > avail || uint64(t.Size) > avail-t.Offset {
			return fmt.Errorf("%w: tensor %q (%d bytes at data offset %d) runs past the end of the file (%d data bytes)", ErrFormat, t.Name, t.Size, t.Offset, avail)
		}
		end = t.Offset + uint64(t.Size)
	}
	return h.checkSequence(fileSize)
}

// checkSequence checks the layout llama.cpp requires: in file order, each tensor's offset is
// the sum of the sizes of the tensors before it, each padded to the alignment, and the data
// section ends with the last tensor (and at most its padding). A tensor whose type or shape
// was changed to one of another size (F32 to F16, Q8_0 to Q4_0) breaks the sequence.
func (h *header) checkSequence(fileSize uint64) error {
	a, next, end := h.alignment, uint64(0), uint64(0)
	for _, t := range h.tensors {
		if t.Offset != next {
			return fmt.Errorf("%w: tensor %q (%s, ne %v) is at data offset %d, but the sizes of the tensors before it put it at %d: a type or shape does not match the data", ErrFormat, t.Name, t.Type, t.Dims, t.Offset, next)
		}
		end = t.Offset + uint64(t.Size)
		next = (end + a - 1) / a * a // place bounded end by the file size: no overflow
	}
	if avail := fileSize - min(fileSize, h.dataStart); len(h.tensors) > 0 && avail > next {
		last := h.tensors[len(h.tensors)-1]
		return fmt.Errorf("%w: %d data bytes, but the tensors end at %d (the last, %q, is %s ne %v): a type or shape does not match the data", ErrFormat, avail, end, last.Name, last.Type, last.Dims)
	}
	return nil
}
