package gpu

import "math"

// WithDefaults fills in the zero-value conventions of AttnParams: KVHeads = Heads, dense
// strides, Scale = 1/sqrt(HeadDim).
func (p AttnParams) WithDefaults() AttnParams {
	if p.KVHeads == 0 {
		p.KVHeads = p.Heads
	}
	if p.QStride == 0 {
		p.QStride = p.Heads * p.HeadDim
	}
	if p.OutStride == 0 {
		p.OutStride = p.Heads * p.HeadDim
	}
	if p.KStride == 0 {
		p.KStride = p.KVHeads * p.HeadDim
	}
	if p.VStride == 0 {
		p.VStride = p.KVHeads * p.HeadDim
	}
	if p.Scale == 0 && p.HeadDim > 0 {
		p.Scale = float32(1 / math.Sqrt(float64(p.HeadDim)))
	}
	return p
}

// VisibleKeys is the number of keys any query may see: SeqK, or KeyValid when that is set
// and smaller.
func (p AttnParams) VisibleKeys() int {
	if p.KeyValid > 0 {
		return min(p.SeqK, p.KeyValid)
	}
	return p.SeqK
}

// WithDefaults returns p with a zero Stride replaced by 1.
func (p ConvParams) WithDefaults() ConvParams {
	p.Stride = max(p.Stride, 1)
	return p
}

// OutSize returns the output height and width.
func (p ConvParams) OutSize() (h, w int) {
	s := max(p.Stride, 1)
	h = (p.InH+p.PadTop+p.PadBottom-p.KH)/s + 1
	w = (p.InW+p.PadLeft+p.PadRight-p.KW)/s + 1
	return h, w
}

// KernelSize is the number of kernel elements per output channel (InC·KH·KW).
func (p ConvParams) KernelSize() int { return p.InC * p.KH * p.KW }

// FromHost allocates an F32 tensor of the given shape on b and uploads data into it.
func FromHost(b Backend, data []float32, shape ...int) (Tensor, error) {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	t, err := b.Alloc(F32, shape...)
	if err != nil {
		return Tensor{}, err
	}
	if t.Len() != len(data) {
		b.Free(t)
		return Tensor{}, errShape("FromHost", len(data), shape)
	}
	b.Upload(t, data)
	return t, nil
}

// ToHost reads t back into a new slice (waiting for the queued work).
func ToHost(b Backend, t Tensor) ([]float32, error) {
	out := make([]float32, t.Len())
	if err := b.Read(out, t); err != nil {
		return nil, err
	}
	return out, nil
}
