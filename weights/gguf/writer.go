package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"kleinbild/internal/atomicfile"
)

// KV is one metadata entry to write.
type KV struct {
	Key   string
	Value Value
}

// String makes a STRING metadata value to write.
func String(s string) Value { return Value{Type: TypeString, str: s} }

// Uint32 makes a UINT32 metadata value to write.
func Uint32(v uint32) Value { return Value{Type: TypeUint32, num: uint64(v)} }

// Float32 makes a FLOAT32 metadata value to write.
func Float32(v float32) Value { return Value{Type: TypeFloat32, num: uint64(math.Float32bits(v))} }

// Strings makes an ARRAY of STRING metadata value to write.
func Strings(s []string) Value {
	var raw []byte
	for _, e := range s {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(len(e)))
		raw = append(raw, e...)
	}
	return Value{Type: TypeArray, Elem: TypeString, Len: len(s), raw: raw}
}

// OutTensor is one tensor to write: packed data of its type, Shape in torch order
// (outermost first; GGUF stores it reversed).
type OutTensor struct {
	Name  string
	Type  Type
	Shape []int
	Data  []byte
}

// Write creates a GGUF v3 file at path atomically (atomicfile.WriteAtomic): metadata in the
// order given, tensors in the order given, each at the next multiple of general.alignment
// (DefaultAlignment when kv has none), as llama.cpp's writers lay them out.
func Write(path string, kv []KV, tensors []OutTensor) error {
	return atomicfile.WriteAtomic(path, func(w *bufio.Writer) error { return Encode(w, kv, tensors) })
}

// Encode writes a GGUF v3 image to w (see Write).
func Encode(w io.Writer, kv []KV, tensors []OutTensor) error {
	align := uint64(DefaultAlignment)
	for _, e := range kv {
		if e.Key == "general.alignment" {
			a, ok := e.Value.Uint()
			if !ok || e.Value.Type != TypeUint32 || a == 0 || a&(a-1) != 0 {
				return fmt.Errorf("gguf: general.alignment must be a UINT32 power of two")
			}
			align = a
		}
	}
	e := &encoder{w: w}
	e.raw([]byte("GGUF"))
	e.u32(3)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kv)))
	for _, m := range kv {
		e.str(m.Key)
		e.u32(uint32(m.Value.Type))
		if err := e.value(m.Value); err != nil {
			return fmt.Errorf("gguf: %s: %w", m.Key, err)
		}
	}
	var off uint64
	for _, t := range tensors {
		n := 1
		for _, d := range t.Shape {
			n *= d
		}
		rowLen := 1
		if len(t.Shape) > 0 {
			rowLen = t.Shape[len(t.Shape)-1]
		}
		_, err := t.Type.RowBytes(rowLen)
		size, err2 := t.Type.RowBytes(n)
		if err == nil {
			err = err2
		}
		if err != nil || size != len(t.Data) || len(t.Shape) > MaxDims {
			return fmt.Errorf("gguf: tensor %s: %s %v does not fit %d bytes of data (%v)", t.Name, t.Type, t.Shape, len(t.Data), err)
		}
		e.str(t.Name)
		e.u32(uint32(len(t.Shape)))
		for i := len(t.Shape) - 1; i >= 0; i-- {
			e.u64(uint64(t.Shape[i]))
		}
		e.u32(uint32(t.Type))
		e.u64(off)
		off += (uint64(len(t.Data)) + align - 1) / align * align
	}
	e.pad(align)
	for _, t := range tensors {
		e.raw(t.Data)
		e.pad(align)
	}
	return e.err
}

// encoder writes little-endian fields, keeping the first error and the byte count.
type encoder struct {
	w   io.Writer
	n   uint64
	err error
	buf [8]byte
}

func (e *encoder) raw(b []byte) {
	if e.err != nil {
		return
	}
	k, err := e.w.Write(b)
	e.n += uint64(k)
	e.err = err
}

func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.raw(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.raw(e.buf[:8]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.raw([]byte(s)) }

func (e *encoder) pad(align uint64) {
	if r := e.n % align; r != 0 {
		e.raw(make([]byte, align-r))
	}
}

func (e *encoder) value(v Value) error {
	switch {
	case v.Type == TypeString:
		e.str(v.str)
	case v.Type == TypeArray:
		if v.Elem == TypeArray || (v.Elem != TypeString && v.Elem.size() == 0) {
			return errors.New("unsupported array element type")
		}
		e.u32(uint32(v.Elem))
		e.u64(uint64(v.Len))
		e.raw(v.raw)
	case v.Type.size() > 0:
		binary.LittleEndian.PutUint64(e.buf[:], v.num)
		e.raw(e.buf[:v.Type.size()])
	default:
		return fmt.Errorf("unknown value type %d", v.Type)
	}
	return nil
}

// QuantizeQ8_0 packs src (a whole number of 32-element blocks) as Q8_0, as ggml's
// quantize_row_q8_0_ref and gguf-py do: d = max|x|/127 stored as f16, q = round(x/d) with
// the multiplication by 1/d done in float32 and ties rounded away from zero.
func QuantizeQ8_0(src []float32) ([]byte, error) {
	if len(src)%32 != 0 {
		return nil, fmt.Errorf("quantize Q8_0: %d values is not a whole number of 32-element blocks", len(src))
	}
	out := make([]byte, 0, len(src)/32*34)
	for b := 0; b < len(src); b += 32 {
		x := src[b : b+32]
		var amax float32
		for _, v := range x {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		d := amax / 127
		var id float32
		if d != 0 {
			id = 1 / d
		}
		out = binary.LittleEndian.AppendUint16(out, toF16(d))
		for _, v := range x {
			out = append(out, byte(int8(math.Round(float64(v*id)))))
		}
	}
	return out, nil
}

// toF16 rounds a float32 to IEEE binary16 bits (nearest even; overflow to infinity).
func toF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0: // subnormal or zero
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, up to infinity: correct
	}
	return sign | uint16(h)
}
