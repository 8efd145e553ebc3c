package cpu

// rope applies rotary position embeddings in place to x [seq, heads·headDim] whose rows are
// stride apart. cos and sin are per-position tables [seq, headDim] (one value per element).
//
// interleaved (FLUX): pairs (2i, 2i+1): out[2i] = x[2i]·cos[2i] − x[2i+1]·sin[2i],
// out[2i+1] = x[2i+1]·cos[2i+1] + x[2i]·sin[2i+1].
// rotate-half (Qwen3): pairs (i, i+headDim/2): out = x·cos + rotate_half(x)·sin with
// rotate_half(x) = [−x[half:], x[:half]].
func (b *Backend) rope(x []float32, seq, heads, headDim, stride int, cos, sin []float32, interleaved bool) {
	half := headDim / 2
	b.parallel(seq, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			c := cos[s*headDim : (s+1)*headDim]
			sn := sin[s*headDim : (s+1)*headDim]
			for h := 0; h < heads; h++ {
				v := x[s*stride+h*headDim : s*stride+(h+1)*headDim]
				if interleaved {
					for i := 0; i < headDim; i += 2 {
						x0, x1 := v[i], v[i+1]
						v[i] = x0*c[i] - x1*sn[i]
						v[i+1] = x1*c[i+1] + x0*sn[i+1]
					}
				} else {
					for i := 0; i < half; i++ {
						x0, x1 := v[i], v[i+half]
						v[i] = x0*c[i] - x1*sn[i]
						v[i+half] = x1*c[i+half] + x0*sn[i+half]
					}
				}
			}
		}
	})
}
