package lora

import (
	"fmt"
	"math"
)

// MaxStrength bounds the strength of one adapter (either sign).
const MaxStrength = 4

// Weighted is an adapter applied with a strength (negative allowed).
type Weighted struct {
	Adapter  *Adapter
	Strength float32
}

// Applied is one term with its effective scale (strength × the file's scale).
type Applied struct {
	*Term
	Scale float32
}

// Stack is several adapters applied together: their changes to a layer add up.
type Stack []Weighted

// Check refuses strengths that are not finite or lie outside ±MaxStrength.
func (s Stack) Check() error {
	for _, w := range s {
		if w.Adapter == nil {
			return fmt.Errorf("lora: nil adapter in stack")
		}
		x := float64(w.Strength)
		if math.IsNaN(x) || math.Abs(x) > MaxStrength {
			return fmt.Errorf("lora: %s: strength %v outside −%d..%d", w.Adapter.Path, w.Strength, MaxStrength, MaxStrength)
		}
	}
	return nil
}

// Modules groups the terms of comp by module, in stack order, each with its effective scale.
// Adapters at strength 0 contribute nothing (and no entry).
func (s Stack) Modules(comp Component) map[string][]Applied {
	out := map[string][]Applied{}
	for _, w := range s {
		if w.Strength == 0 {
			continue
		}
		for i := range w.Adapter.Terms {
			t := &w.Adapter.Terms[i]
			if t.Component == comp {
				out[t.Module] = append(out[t.Module], Applied{Term: t, Scale: w.Strength * t.Scale})
			}
		}
	}
	return out
}

// DeltaW returns Σ scale·ΔW of terms as a row-major [out, in] float32 matrix, each product
// and the sum computed in float64 and rounded once. All terms must have shape [out, in]. It
// allocates out·in floats: for merging into a weight, tests and the reference.
func DeltaW(terms []Applied, out, in int) ([]float32, error) {
	acc := make([]float64, out*in)
	for _, t := range terms {
		if t.Out != out || t.In != in {
			return nil, fmt.Errorf("lora: %s: ΔW is [%d, %d], the layer [%d, %d]", t.Module, t.Out, t.In, out, in)
		}
		s := float64(t.Scale)
		switch t.Kind {
		case LoRA:
			addLoRA(acc, t.A, t.B, s)
		case LoKr:
			addKron(acc, t.W1.Dense(), t.W2.Dense(), s)
		}
	}
	d := make([]float32, len(acc))
	for i, v := range acc {
		d[i] = float32(v)
	}
	return d, nil
}

// addLoRA adds s·B·A to acc [B.Rows, A.Cols].
func addLoRA(acc []float64, a, b Matrix, s float64) {
	in := a.Cols
	for o := range b.Rows {
		row := acc[o*in : (o+1)*in]
		for r := range b.Cols {
			f := s * float64(b.At(o, r))
			if f == 0 {
				continue
			}
			ar := a.Data[r*in : (r+1)*in]
			for i, v := range ar {
				row[i] += f * float64(v)
			}
		}
	}
}

// addKron adds s·kron(w1, w2) to acc: element (i·r2+k, j·c2+l) = w1[i,j]·w2[k,l].
func addKron(acc []float64, w1, w2 Matrix, s float64) {
	in := w1.Cols * w2.Cols
	for i := range w1.Rows {
		for j := range w1.Cols {
			f := s * float64(w1.At(i, j))
			for k := range w2.Rows {
				row := acc[(i*w2.Rows+k)*in+j*w2.Cols:]
				for l, v := range w2.Data[k*w2.Cols : (k+1)*w2.Cols] {
					row[l] += f * float64(v)
				}
			}
		}
	}
}

// matmul returns a·b, accumulated in float64.
func matmul(a, b Matrix) Matrix {
	out := Matrix{Rows: a.Rows, Cols: b.Cols, Data: make([]float32, a.Rows*b.Cols)}
	acc := make([]float64, b.Cols)
	for i := range a.Rows {
		clear(acc)
		for k := range a.Cols {
			f := float64(a.At(i, k))
			for j, v := range b.Data[k*b.Cols : (k+1)*b.Cols] {
				acc[j] += f * float64(v)
			}
		}
		for j, v := range acc {
			out.Data[i*b.Cols+j] = float32(v)
		}
	}
	return out
}

// Apply adds the terms' change to a layer's output, y[t] += Σ scale·ΔW·x[t], for tokens rows
// of x [tokens, in] and y [tokens, out], without forming ΔW: LoRA as (x·Aᵀ)·Bᵀ, LoKr as two
// small products per token (x[t] viewed as [c1, c2]: w1 · (x[t] · w2ᵀ)ᵀ, the rows of the
// result being y[t] viewed as [r1, r2]). It is the reference for the backends (float64
// accumulation).
func Apply(y, x []float32, tokens int, terms []Applied) error {
	for _, t := range terms {
		if len(x) != tokens*t.In || len(y) != tokens*t.Out {
			return fmt.Errorf("lora: %s: x has %d and y %d values, want %d×%d and %d×%d", t.Module, len(x), len(y), tokens, t.In, tokens, t.Out)
		}
		var w1, w2 Matrix
		if t.Kind == LoKr {
			w1, w2 = t.W1.Dense(), t.W2.Dense()
		}
		for n := range tokens {
			xs, ys := x[n*t.In:(n+1)*t.In], y[n*t.Out:(n+1)*t.Out]
			if t.Kind == LoRA {
				applyLoRA(ys, xs, t)
			} else {
				applyKron(ys, xs, w1, w2, float64(t.Scale))
			}
		}
	}
	return nil
}

func applyLoRA(y, x []float32, t Applied) {
	h := make([]float64, t.Rank)
	for r := range h {
		var s float64
		for i, v := range t.A.Data[r*t.In : (r+1)*t.In] {
			s += float64(v) * float64(x[i])
		}
		h[r] = s
	}
	for o := range y {
		var s float64
		for r, v := range t.B.Data[o*t.Rank : (o+1)*t.Rank] {
			s += float64(v) * h[r]
		}
		y[o] += float32(float64(t.Scale) * s)
	}
}

func applyKron(y, x []float32, w1, w2 Matrix, scale float64) {
	r1, c1, r2, c2 := w1.Rows, w1.Cols, w2.Rows, w2.Cols
	// u[j, k] = Σ_l x[j·c2 + l] · w2[k, l]
	u := make([]float64, c1*r2)
	for j := range c1 {
		for k := range r2 {
			var s float64
			for l, v := range w2.Data[k*c2 : (k+1)*c2] {
				s += float64(v) * float64(x[j*c2+l])
			}
			u[j*r2+k] = s
		}
	}
	// y[i·r2 + k] += scale · Σ_j w1[i, j] · u[j, k]
	for i := range r1 {
		for k := range r2 {
			var s float64
			for j := range c1 {
				s += float64(w1.At(i, j)) * u[j*r2+k]
			}
			y[i*r2+k] += float32(scale * s)
		}
	}
}

// FLOPsPerToken is the work of the term's run-time product for one token (multiply-adds
// counted as 2): 2·rank·(in + out) for LoRA; for LoKr x·w2ᵀ then w1·(…), with w2 applied
// through its factors when decomposed (w1 is tiny and taken dense).
func (t *Term) FLOPsPerToken() float64 {
	if t.Kind == LoRA {
		return 2 * float64(t.Rank) * float64(t.In+t.Out)
	}
	r1, c1 := t.W1.Shape()
	r2, c2 := t.W2.Shape()
	w2 := float64(r2 * c2)
	if t.W2.Decomposed() {
		w2 = float64(t.W2.A.Cols) * float64(r2+c2)
	}
	return 2 * (float64(c1)*w2 + float64(r1)*float64(c1)*float64(r2))
}

// FLOPsPerToken sums the run-time work of every active term of comp for one token.
func (s Stack) FLOPsPerToken(comp Component) float64 {
	var f float64
	for _, terms := range s.Modules(comp) {
		for _, t := range terms {
			f += t.FLOPsPerToken()
		}
	}
	return f
}

// Bytes is the memory the adapter's factors take (float32; fused-qkv terms share A).
func (a *Adapter) Bytes() int64 {
	seen := map[*float32]bool{}
	var n int64
	add := func(m Matrix) {
		if len(m.Data) == 0 || seen[&m.Data[0]] {
			return
		}
		seen[&m.Data[0]] = true
		n += 4 * int64(len(m.Data))
	}
	for _, t := range a.Terms {
		for _, m := range []Matrix{t.A, t.B, t.W1.Full, t.W1.A, t.W1.B, t.W2.Full, t.W2.A, t.W2.B} {
			add(m)
		}
	}
	return n
}
