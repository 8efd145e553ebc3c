package gpu

import "math"

// AttnParams describes a scaled-dot-product attention call. Rows of q, k, v and out are
// [heads·headDim] wide (kvHeads·headDim for k and v) and stride apart; a zero stride means
// densely packed. Grouped-query attention: query head h uses key/value head
// h / (Heads/KVHeads).
type AttnParams struct {
	SeqQ, SeqK                           int
	Heads, KVHeads, HeadDim              int
	QStride, KStride, VStride, OutStride int
	Scale                                float32 // usually 1/sqrt(HeadDim)
	Causal                               bool    // query i sees keys j <= i (needs SeqQ == SeqK)
	KeyValid                             int     // keys j >= KeyValid are masked (0: all valid)
}

// attnTile is the number of query rows whose scores are held at once: the full
// [SeqQ, SeqK] score matrix is never materialised.
const attnTile = 128

// maskedScore is what transformers' eager attention adds to masked scores (finfo(float32).min).
const maskedScore = -math.MaxFloat32

// Attention computes out = softmax(q·kᵀ·scale + mask)·v per head.
func (d *Device) Attention(out, q, k, v []float32, p AttnParams) {
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
	group := p.Heads / p.KVHeads
	scores := make([]float32, attnTile*p.SeqK)
	for h := 0; h < p.Heads; h++ {
		kvh := h / group
		for q0 := 0; q0 < p.SeqQ; q0 += attnTile {
			nq := min(attnTile, p.SeqQ-q0)
			s := scores[:nq*p.SeqK]
			d.backend.Sgemm(false, true, nq, p.SeqK, p.HeadDim, p.Scale,
				q[q0*p.QStride+h*p.HeadDim:], p.QStride,
				k[kvh*p.HeadDim:], p.KStride, 0, s, p.SeqK)
			d.Parallel(nq, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					row := s[i*p.SeqK : (i+1)*p.SeqK]
					if p.Causal || p.KeyValid > 0 {
						for j := range row {
							if (p.Causal && j > q0+i) || (p.KeyValid > 0 && j >= p.KeyValid) {
								row[j] += maskedScore
							}
						}
					}
					softmax(row)
				}
			})
			d.backend.Sgemm(false, false, nq, p.HeadDim, p.SeqK, 1, s, p.SeqK,
				v[kvh*p.HeadDim:], p.VStride, 0, out[q0*p.OutStride+h*p.HeadDim:], p.OutStride)
		}
	}
}
