package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// ValueType is the type of a metadata value (GGUF's gguf_type).
type ValueType uint32

// The metadata value types of GGUF v2/v3.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var valueTypeNames = [...]string{"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32",
	"BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"}

// String is the GGUF spelling ("UINT32", "STRING", ...).
func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("value-type(%d)", uint32(t))
}

// size is the encoded size of a fixed-size value, 0 for STRING and ARRAY and unknown types.
func (t ValueType) size() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// Value is one metadata value. Scalars and strings are decoded; an array keeps its encoded
// elements (a view of the file) and decodes them on request, so that the token and merge
// lists of a llama.cpp file cost nothing unless they are read.
type Value struct {
	Type ValueType
	// Elem and Len describe an ARRAY: element type and count.
	Elem ValueType
	Len  int
	num  uint64 // the bits of a scalar (sign-extended for signed types, IEEE bits for floats)
	str  string
	raw  []byte // the encoded elements of an array
}

// Uint returns an unsigned or non-negative signed integer value.
func (v Value) Uint() (uint64, bool) {
	switch v.Type {
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		return v.num, true
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		if int64(v.num) >= 0 {
			return v.num, true
		}
	}
	return 0, false
}

// Int returns an integer value that fits int64.
func (v Value) Int() (int64, bool) {
	switch v.Type {
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		return int64(v.num), true
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		if v.num <= math.MaxInt64 {
			return int64(v.num), true
		}
	}
	return 0, false
}

// Float returns a FLOAT32 or FLOAT64 value.
func (v Value) Float() (float64, bool) {
	switch v.Type {
	case TypeFloat32:
		return float64(math.Float32frombits(uint32(v.num))), true
	case TypeFloat64:
		return math.Float64frombits(v.num), true
	}
	return 0, false
}

// Bool returns a BOOL value.
func (v Value) Bool() (bool, bool) { return v.num != 0, v.Type == TypeBool }

// Str returns a STRING value.
func (v Value) Str() (string, bool) { return v.str, v.Type == TypeString }

// Strings decodes an ARRAY of STRING. It allocates the whole list: a caller reading an
// untrusted file should check Len first.
func (v Value) Strings() ([]string, bool) {
	if v.Type != TypeArray || v.Elem != TypeString {
		return nil, false
	}
	out := make([]string, 0, v.Len)
	r := reader{data: v.raw}
	for range v.Len {
		s, err := r.str(len(v.raw))
		if err != nil { // cannot happen: the array was walked when the file was parsed
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// Ints decodes an ARRAY of any integer type.
func (v Value) Ints() ([]int64, bool) {
	if v.Type != TypeArray {
		return nil, false
	}
	size := v.Elem.size()
	if size == 0 || v.Elem == TypeBool || v.Elem == TypeFloat32 || v.Elem == TypeFloat64 {
		return nil, false
	}
	out := make([]int64, v.Len)
	for i := range out {
		out[i] = int64(scalarBits(v.Elem, v.raw[i*size:]))
	}
	return out, true
}

// scalarBits decodes a fixed-size little-endian value (sign-extending signed integers).
func scalarBits(t ValueType, b []byte) uint64 {
	switch t {
	case TypeUint8, TypeBool:
		return uint64(b[0])
	case TypeInt8:
		return uint64(int64(int8(b[0])))
	case TypeUint16:
		return uint64(binary.LittleEndian.Uint16(b))
	case TypeInt16:
		return uint64(int64(int16(binary.LittleEndian.Uint16(b))))
	case TypeUint32, TypeFloat32:
		return uint64(binary.LittleEndian.Uint32(b))
	case TypeInt32:
		return uint64(int64(int32(binary.LittleEndian.Uint32(b))))
	}
	return binary.LittleEndian.Uint64(b)
}

// String shows the value briefly (arrays by element type and length).
func (v Value) String() string {
	switch v.Type {
	case TypeString:
		return fmt.Sprintf("%q", v.str)
	case TypeArray:
		return fmt.Sprintf("[%d x %s]", v.Len, v.Elem)
	case TypeFloat32, TypeFloat64:
		f, _ := v.Float()
		return fmt.Sprint(f)
	case TypeBool:
		return fmt.Sprint(v.num != 0)
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		return fmt.Sprint(int64(v.num))
	}
	return fmt.Sprint(v.num)
}
