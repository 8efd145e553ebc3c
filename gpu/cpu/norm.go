package cpu

import "math"

// layerNorm normalises each row of x [rows, dim] to zero mean and unit variance (biased
// variance, eps inside the square root) and applies weight and bias when non-nil. y may alias x.
func (b *Backend) layerNorm(y, x []float32, rows, dim int, eps float32, weight, bias []float32) {
	b.parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr := x[r*dim : (r+1)*dim]
			yr := y[r*dim : (r+1)*dim]
			var mean float64
			for _, v := range xr {
				mean += float64(v)
			}
			mean /= float64(dim)
			var vs float64
			for _, v := range xr {
				dv := float64(v) - mean
				vs += dv * dv
			}
			inv := 1 / math.Sqrt(vs/float64(dim)+float64(eps))
			// float64 arithmetic costs the same as float32 in scalar code and keeps x - mean
			// exact when the row's spread is small against its mean.
			for i, v := range xr {
				o := (float64(v) - mean) * inv
				if weight != nil {
					o *= float64(weight[i])
				}
				if bias != nil {
					o += float64(bias[i])
				}
				yr[i] = float32(o)
			}
		}
	})
}

// rmsNorm computes y = x·rsqrt(mean(x²)+eps)·weight per row of x [rows, dim] (weight may be
// nil), in float32 as torch does. y may alias x.
func (b *Backend) rmsNorm(y, x []float32, rows, dim int, eps float32, weight []float32) {
	b.parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr := x[r*dim : (r+1)*dim]
			yr := y[r*dim : (r+1)*dim]
			var ss float64
			for _, v := range xr {
				ss += float64(v) * float64(v)
			}
			inv := float32(1 / math.Sqrt(float64(float32(ss/float64(dim))+eps)))
			for i, v := range xr {
				o := v * inv
				if weight != nil {
					o *= weight[i]
				}
				yr[i] = o
			}
		}
	})
}

// groupNorm normalises x [C, hw] (one image, channels first) over groups of C/groups channels
// and applies per-channel gamma and beta (nil means 1 and 0). y may alias x.
func (b *Backend) groupNorm(y, x []float32, channels, hw, groups int, eps float32, gamma, beta []float32) {
	cpg := channels / groups
	b.parallel(groups, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			seg := x[g*cpg*hw : (g+1)*cpg*hw]
			var mean float64
			for _, v := range seg {
				mean += float64(v)
			}
			mean /= float64(len(seg))
			var vs float64
			for _, v := range seg {
				dv := float64(v) - mean
				vs += dv * dv
			}
			inv := 1 / math.Sqrt(vs/float64(len(seg))+float64(eps))
			for c := g * cpg; c < (g+1)*cpg; c++ {
				// y = x·sc + sh in float64 (as cheap as float32 here): no cancellation error
				// when the group's spread is small against its mean.
				sc, sh := inv, -mean*inv
				if gamma != nil {
					sc *= float64(gamma[c])
					sh *= float64(gamma[c])
				}
				if beta != nil {
					sh += float64(beta[c])
				}
				xs := x[c*hw : (c+1)*hw]
				ys := y[c*hw : (c+1)*hw]
				for i, v := range xs {
					ys[i] = float32(float64(v)*sc + sh)
				}
			}
		}
	})
}

// headRMSNorm applies torch.nn.RMSNorm(headDim) in place to every head of x, whose rows
// (tokens) are stride apart and hold heads consecutive headDim-wide slices from offset 0:
// v·rsqrt(mean(v²) + eps)·w (w may be nil), the mean taken in float32 as the reference does.
func (b *Backend) headRMSNorm(x []float32, rows, stride, heads, headDim int, eps float32, w []float32) {
	b.parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			for h := 0; h < heads; h++ {
				v := x[r*stride+h*headDim : r*stride+(h+1)*headDim]
				var ss float64
				for _, e := range v {
					ss += float64(e) * float64(e)
				}
				inv := float32(1 / math.Sqrt(float64(float32(ss/float64(headDim))+eps)))
				if w == nil {
					for i, e := range v {
						v[i] = e * inv
					}
					continue
				}
				for i, e := range v[:len(w)] {
					v[i] = e * inv * w[i]
				}
			}
		}
	})
}
