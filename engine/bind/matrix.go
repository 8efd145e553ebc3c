package bind

import (
	"fmt"

	"kleinbild/gpu"
	"kleinbild/gpu/quant"
	"kleinbild/weights"
)

// Matrix is an [Out, In] weight as the checkpoint holds it, on the host: exactly one of BF16
// and F32 (views of the mapping, or a converted copy) or Packed (a quantized tensor kept
// packed) is set. The zero Matrix is none.
type Matrix struct {
	Out, In int
	BF16    []uint16
	F32     []float32
	Packed  *weights.Tensor
	file    string // the file the views are of: Upload reads them under weights.Guard
}

func (m Matrix) empty() bool { return m.BF16 == nil && m.F32 == nil && m.Packed == nil }

// Upload makes m a read-only backend tensor [Out, In] of b: a view of the mapping on a CPU
// backend, a copy on a device. Packed data stays packed where b takes its type and is
// dequantized to float32 where it refuses.
//
// A memory fault while the mapping is read (the file shrank) is an error wrapping
// weights.ErrFileChanged, not a SIGBUS.
func (m Matrix) Upload(b gpu.Backend) (t gpu.Tensor, err error) {
	err = weights.Guard(m.file, func() (err error) { t, err = m.upload(b); return err })
	return t, err
}

func (m Matrix) upload(b gpu.Backend) (gpu.Tensor, error) {
	switch {
	case m.BF16 != nil:
		return b.WeightBF16(m.BF16, m.Out, m.In)
	case m.Packed != nil:
		q := m.Packed.Quantized()
		if dt, ok := gpu.QuantByName(q.Type); ok {
			if w, err := b.WeightQuant(dt, q.Data, m.Out, m.In); err == nil {
				return w, nil
			} // refused: fall back to the dequantized float32
		}
		f, err := m.Packed.Float32()
		if err != nil {
			return gpu.Tensor{}, err
		}
		return b.WeightF32(f, m.Out, m.In)
	}
	return b.WeightF32(m.F32, m.Out, m.In)
}

// Matrix returns the named [out, in] tensor as a host Matrix that holds views only: BF16 or
// F32 data (a quantized tensor dequantized once), or the packed tensor of a quantized Linear
// weight (linear) or of a quantized table whose rows are whole blocks of a type gpu/quant
// decodes (an embedding: the caller decodes the rows it looks up). Other dtypes are a problem. It returns the zero Matrix when
// recording or on a problem, and reads no data once a problem was found.
func (bd *Binder) Matrix(name string, out, in int, linear bool) Matrix {
	t := bd.lookup(name, []int{out, in})
	if t == nil || bd.Failed() {
		return Matrix{}
	}
	m := Matrix{Out: out, In: in, file: t.File}
	var err error
	switch {
	case t.Quantized() != nil && (linear || rowsDecodable(t.Quantized(), in)):
		m.Packed = t
	case t.DType == weights.BF16:
		m.BF16, err = t.BF16()
	case t.DType == weights.F32:
		m.F32, err = t.Float32()
	default:
		err = fmt.Errorf("%s: tensor %q is %s, want BF16 or F32", t.File, t.Name, t.DType)
	}
	if err != nil {
		bd.Fail(err)
		return Matrix{}
	}
	return m
}

// rowsDecodable reports whether each row of in elements of q is whole blocks of a type
// package gpu/quant decodes, so that rows can be decoded one at a time.
func rowsDecodable(q *weights.Quant, in int) bool {
	dt, ok := gpu.QuantByName(q.Type)
	be, _ := dt.Block()
	return ok && be > 0 && in%be == 0 && quant.Decoder(dt) != nil
}
