// Package gguf reads GGUF files (versions 2 and 3), the format of llama.cpp, stable-diffusion.cpp
// and ComfyUI-GGUF: metadata, tensor infos and the tensors' packed data, mapped read-only
// through the same guarded opener and mapping as the safetensors reader. It also dequantizes
// the common ggml block types to float32, bit-exact to ggml's reference decoders.
//
// A file is validated completely when opened (every count, string, dimension, offset and
// size against the file's length and fixed limits, and the layout llama.cpp requires: each
// tensor where the sizes of those before it put it, the data ending with the last), so a
// corrupt or hostile file gives an error matching ErrFormat rather than a crash, a hang, a
// huge allocation or, for a tensor type changed to a smaller one, other numbers.
package gguf

import (
	"errors"
	"fmt"
	"slices"

	"kleinbild/weights"
)

// ErrNotFound is wrapped by errors about missing tensors.
var ErrNotFound = errors.New("tensor not found")

// Tensor is one tensor of a GGUF file: its info and a view of its packed data.
type Tensor struct {
	Name string
	Type Type
	// Dims is GGUF's ne: innermost (row length) first.
	Dims []uint64
	// Shape is the torch/numpy shape, Dims reversed: a GGUF tensor with ne = [cols, rows] is
	// the matrix [rows, cols].
	Shape  []int
	Offset uint64 // from the start of the data section
	Size   int    // bytes of packed data
	data   []byte
	file   string // the file's path, for errors
}

// Numel is the number of elements (1 for a tensor without dimensions).
func (t *Tensor) Numel() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// RowLen is the length of the innermost dimension (ne[0]); 1 for a tensor without dimensions.
func (t *Tensor) RowLen() int {
	if len(t.Dims) == 0 {
		return 1
	}
	return int(t.Dims[0])
}

// Bytes is the packed data, a read-only view of the file (writing to it faults). It must not
// be used after the file is closed.
func (t *Tensor) Bytes() []byte { return t.data }

// Float32 returns the tensor dequantized to float32 (a new slice) in row-major order of Shape.
func (t *Tensor) Float32() ([]float32, error) {
	out := make([]float32, t.Numel())
	if err := t.ReadFloat32(out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadFloat32 dequantizes the tensor into dst, whose length must be Numel.
func (t *Tensor) ReadFloat32(dst []float32) error {
	if len(dst) != t.Numel() {
		return fmt.Errorf("tensor %q has %d elements, buffer has %d", t.Name, t.Numel(), len(dst))
	}
	return weights.Guard(t.file, func() error {
		if err := Dequantize(t.Type, dst, t.data); err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		return nil
	})
}

// File is an open GGUF file.
type File struct {
	Path      string
	Version   uint32
	Alignment uint64 // general.alignment, or DefaultAlignment
	DataStart uint64 // byte offset of the data section
	h         *header
	byName    map[string]*Tensor
	m         *weights.Mapping // nil for ParseBytes
	closed    bool
}

// Open maps the GGUF file at path read-only and validates it completely.
func Open(path string) (*File, error) {
	m, err := weights.MapFile(path)
	if err != nil {
		return nil, fmt.Errorf("open gguf: %w", err)
	}
	var f *File
	err = weights.Guard(path, func() (err error) { f, err = ParseBytes(path, m.Bytes()); return err })
	if err != nil {
		m.Close()
		return nil, err
	}
	f.m = m
	return f, nil
}

// ParseBytes parses a complete GGUF image held in memory (tests, fuzzing). name is used in
// errors and as Path; the tensors are views of data.
func ParseBytes(name string, data []byte) (*File, error) {
	h, err := parseHeader(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f := &File{Path: name, Version: h.version, Alignment: h.alignment, DataStart: h.dataStart, h: h,
		byName: make(map[string]*Tensor, len(h.tensors))}
	for _, t := range h.tensors {
		t.file = name
		f.byName[t.Name] = t
	}
	return f, nil
}

// Keys lists the metadata keys in file order.
func (f *File) Keys() []string { return slices.Clone(f.h.keys) }

// Value returns the metadata value of key.
func (f *File) Value(key string) (Value, bool) { v, ok := f.h.kv[key]; return v, ok }

// Str returns a STRING metadata value ("" and false when absent or of another type).
func (f *File) Str(key string) (string, bool) {
	v, ok := f.h.kv[key]
	if !ok {
		return "", false
	}
	return v.Str()
}

// Uint returns an integer metadata value that is not negative.
func (f *File) Uint(key string) (uint64, bool) {
	v, ok := f.h.kv[key]
	if !ok {
		return 0, false
	}
	return v.Uint()
}

// Float returns a FLOAT32 or FLOAT64 metadata value.
func (f *File) Float(key string) (float64, bool) {
	v, ok := f.h.kv[key]
	if !ok {
		return 0, false
	}
	return v.Float()
}

// Architecture is general.architecture ("flux", "qwen3", ...), "" when absent (as in
// stable-diffusion.cpp's files, which carry no metadata).
func (f *File) Architecture() string { s, _ := f.Str("general.architecture"); return s }

// Tensors lists the tensors in file order.
func (f *File) Tensors() []*Tensor { return slices.Clone(f.h.tensors) }

// Names lists the tensor names in file order.
func (f *File) Names() []string {
	out := make([]string, len(f.h.tensors))
	for i, t := range f.h.tensors {
		out[i] = t.Name
	}
	return out
}

// Tensor returns the named tensor or an error naming the file.
func (f *File) Tensor(name string) (*Tensor, error) {
	if f.closed {
		return nil, fmt.Errorf("%s: tensor %q requested after the file was closed", f.Path, name)
	}
	if t, ok := f.byName[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("%s: %w: %q", f.Path, ErrNotFound, name)
}

// Has reports whether the file holds the named tensor.
func (f *File) Has(name string) bool { _, ok := f.byName[name]; return ok && !f.closed }

// Release advises the system that the named tensor's pages may be dropped from memory
// (after it was copied or uploaded); they are read from the file again if needed.
func (f *File) Release(t *Tensor) error {
	if f.m == nil || f.closed {
		return nil
	}
	return f.m.DontNeed(t.data)
}

// ReleaseAll advises the system that every page of the file may be dropped from memory;
// they are read from the file again if needed.
func (f *File) ReleaseAll() error {
	if f.m == nil || f.closed {
		return nil
	}
	return f.m.DontNeed(f.m.Bytes())
}

// Close unmaps the file. Tensors obtained from it must not be used afterwards.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	if f.m != nil {
		return f.m.Close()
	}
	return nil
}
