package weights

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestQuantLazy checks a packed tensor: Quantized gives its blocks, Float32 / ReadFloat32 /
// Bytes decode it once, a decoder error or a wrong length is reported, and NewFile refuses
// a packed tensor that also has data or is not F32.
func TestQuantLazy(t *testing.T) {
	calls := 0
	dec := func() ([]byte, error) {
		calls++
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, math.Float32bits(1.5))
		binary.LittleEndian.PutUint32(b[4:], math.Float32bits(-2))
		return b, nil
	}
	packed := []byte{1, 2, 3}
	f, err := NewFile("x", []TensorData{
		{Name: "ok", DType: F32, Shape: []int{1, 2}, Quant: &Quant{Type: "Q8_0", Data: packed, Decode: dec}},
		{Name: "bad", DType: F32, Shape: []int{2}, Quant: &Quant{Type: "Q8_0", Decode: func() ([]byte, error) { return nil, errors.New("boom") }}},
		{Name: "short", DType: F32, Shape: []int{2}, Quant: &Quant{Type: "Q8_0", Decode: func() ([]byte, error) { return make([]byte, 4), nil }}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ok := f.tensors["ok"]
	if q := ok.Quantized(); q == nil || q.Type != "Q8_0" || &q.Data[0] != &packed[0] {
		t.Fatalf("Quantized() = %+v", q)
	}
	if calls != 0 {
		t.Fatal("decoded before use")
	}
	v, err := ok.Float32()
	if err != nil || len(v) != 2 || v[0] != 1.5 || v[1] != -2 {
		t.Fatalf("Float32 = %v, %v", v, err)
	}
	dst := make([]float32, 2)
	if err := ok.ReadFloat32(dst); err != nil || dst[1] != -2 || len(ok.Bytes()) != 8 || calls != 1 {
		t.Fatalf("ReadFloat32 %v %v, %d bytes, %d decodes", dst, err, len(ok.Bytes()), calls)
	}
	for _, n := range []string{"bad", "short"} {
		if _, err := f.tensors[n].Float32(); err == nil || !strings.Contains(err.Error(), n) {
			t.Errorf("%s: Float32 error %v", n, err)
		}
		if f.tensors[n].Bytes() != nil {
			t.Errorf("%s: Bytes of an undecodable tensor", n)
		}
	}
	if f.tensors["bad"].Quantized() == nil || (&Tensor{}).Quantized() != nil {
		t.Error("Quantized of a plain tensor is not nil")
	}
	for _, td := range []TensorData{
		{Name: "data", DType: F32, Shape: []int{2}, Data: make([]byte, 8), Quant: &Quant{Decode: dec}},
		{Name: "bf16", DType: BF16, Shape: []int{2}, Quant: &Quant{Decode: dec}},
		{Name: "nodec", DType: F32, Shape: []int{2}, Quant: &Quant{}},
	} {
		if _, err := NewFile("x", []TensorData{td}, nil); err == nil {
			t.Errorf("%s: NewFile accepted it", td.Name)
		}
	}
}
