package gputest

import (
	"math"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

func refSiLU(v float64) float64 { return v / (1 + math.Exp(-v)) }

// elemSizes are the lengths of element-wise tests.
func elemSizes(o Options) []int {
	if o.Short {
		return []int{1, 7, 129, 3072, 10007}
	}
	return []int{1, 7, 129, 3072, 100003}
}

// TestSiLU checks SiLU out of place and in place, including the tails of the sigmoid.
func TestSiLU(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	for _, n := range elemSizes(o) {
		x := e.randScaled(n, 4) // reach the tails of the sigmoid
		if n > 7 {
			x[0], x[1], x[2], x[3] = 90, -90, 0, -1e-30
		}
		want := make([]float64, n)
		for i, v := range x {
			want[i] = refSiLU(float64(v))
		}
		lb := label("n=%d", n)
		xt, y := e.in(x), e.out(n)
		b.SiLU(y.t, xt.t)
		e.check(lb, e.read(lb, y), want, tolDiv)
		xc := e.tensor(x, false)
		b.SiLU(xc.t, xc.t)
		e.check(lb+" in place", e.read(lb, xc), want, tolDiv)
		e.done(lb)
	}
}

// TestSwiGLU checks SwiGLU on dense and strided rows (gaps of y left alone).
func TestSwiGLU(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	// rows, hidden, xStride, yStride (0: dense).
	for _, sh := range [][4]int{{1, 1, 0, 0}, {7, 129, 0, 0}, {3, 3072, 0, 0}, {129, 7, 0, 0}, {7, 129, 300, 131}, {5, 64, 3*64 + 1, 2 * 64}, {1, 5, 13, 9}} {
		rows, hidden, xs, ys := sh[0], sh[1], sh[2], sh[3]
		if xs == 0 {
			xs = 2 * hidden
		}
		if ys == 0 {
			ys = hidden
		}
		xd := e.randn(rows*2*hidden, 0)
		want := make([]float64, rows*hidden)
		for i := 0; i < rows; i++ {
			for j := 0; j < hidden; j++ {
				want[i*hidden+j] = refSiLU(float64(xd[i*2*hidden+j])) * float64(xd[i*2*hidden+hidden+j])
			}
		}
		x := strided(xd, rows, 2*hidden, xs)
		init := strided(refmath.NaNs(rows*hidden), rows, hidden, ys)
		lb := label("rows=%d hidden=%d xStride=%d yStride=%d", rows, hidden, sh[2], sh[3])
		xt, y := e.in(x), e.tensor(init, false)
		b.SwiGLU(y.t, xt.t, rows, hidden, sh[2], sh[3])
		got := e.read(lb, y)
		e.check(lb, dense(got, rows, hidden, ys), want, tolDiv)
		e.checkUntouched(lb, got, init, rows, hidden, ys)
		e.done(lb)
	}
}

// exactRef applies f element-wise in float32.
func exactRef(a, b []float32, f func(x, y float32) float32) []float32 {
	w := make([]float32, len(a))
	for i := range w {
		w[i] = f(a[i], b[i])
	}
	return w
}

// TestElementwise checks Add, Mul and AddScaled (exact), out of place and aliased.
func TestElementwise(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	add := func(x, y float32) float32 { return x + y }
	mul := func(x, y float32) float32 { return x * y }
	for _, n := range elemSizes(o) {
		a, c := e.randn(n, 0), e.randn(n, 0)
		lb := label("n=%d", n)
		at, ct := e.in(a), e.in(c)
		y := e.out(n)
		b.Add(y.t, at.t, ct.t)
		e.checkExact("Add "+lb, e.read(lb, y), exactRef(a, c, add))
		y = e.out(n)
		b.Mul(y.t, at.t, ct.t)
		e.checkExact("Mul "+lb, e.read(lb, y), exactRef(a, c, mul))

		// Aliased: y = a, then y = b.
		ac := e.tensor(a, false)
		b.Add(ac.t, ac.t, ct.t)
		e.checkExact("Add in place (a) "+lb, e.read(lb, ac), exactRef(a, c, add))
		cc := e.tensor(c, false)
		b.Mul(cc.t, at.t, cc.t)
		e.checkExact("Mul in place (b) "+lb, e.read(lb, cc), exactRef(a, c, mul))
		sq := e.tensor(a, false)
		b.Mul(sq.t, sq.t, sq.t)
		e.checkExact("Mul square in place "+lb, e.read(lb, sq), exactRef(a, a, mul))

		// AddScaled: y += float32(s·x), the Euler step's rounding.
		for _, s := range []float32{0.75, -0.37, -0.0625, float32(0.3173 - 0.3518)} {
			yt := e.tensor(c, false)
			b.AddScaled(yt.t, at.t, s)
			e.checkMulAdd(label("AddScaled s=%v %s", s, lb), e.read(lb, yt), exactRef(c, a, func(y, x float32) float32 { return y + float32(s*x) }),
				exactRef(c, a, func(y, x float32) float32 { return fma32(s, x, y) }))
		}
		e.done(lb)
	}
}

// TestGatedAdd checks GatedAdd: x[r] += float32(gate ⊙ y[r]) exactly (or fused, see doc.go).
func TestGatedAdd(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	for _, sh := range [][2]int{{1, 1}, {1, 7}, {7, 129}, {129, 64}, {3, 3072}} {
		rows, dim := sh[0], sh[1]
		x, y, gate := e.randn(rows*dim, 0), e.randn(rows*dim, 0), e.randn(dim, 0)
		want, fused := make([]float32, rows*dim), make([]float32, rows*dim)
		for i := range want {
			want[i] = x[i] + float32(gate[i%dim]*y[i])
			fused[i] = fma32(gate[i%dim], y[i], x[i])
		}
		lb := label("rows=%d dim=%d", rows, dim)
		xt, yt := e.tensor(x, false, rows, dim), e.in(y, rows, dim)
		var gt gpu.Tensor
		if rows%2 == 1 {
			gt = e.weight(gate).t
		} else {
			gt = e.in(gate).t
		}
		b.GatedAdd(xt.t, yt.t, gt, rows, dim)
		e.checkMulAdd(lb, e.read(lb, xt), want, fused)
		e.done(lb)
	}
}

// TestGuidance checks Guidance: cond = uncond + float32(scale·float32(cond − uncond)) exactly
// (or with the last multiply-add fused, see doc.go).
func TestGuidance(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	for _, n := range elemSizes(o) {
		c, u := e.randn(n, 0), e.randn(n, 0.3)
		for _, g := range []float32{4, 1.5, 3.7, 1} {
			want, fused := make([]float32, n), make([]float32, n)
			for i := range want {
				want[i] = u[i] + float32(g*float32(c[i]-u[i]))
				fused[i] = fma32(g, c[i]-u[i], u[i])
			}
			lb := label("n=%d scale=%v", n, g)
			ct, ut := e.tensor(c, false), e.in(u)
			b.Guidance(ct.t, ut.t, g)
			e.checkMulAdd(lb, e.read(lb, ct), want, fused)
			e.done(lb)
		}
	}
}

// TestCopy checks Copy between views at various offsets (token concatenation and slicing), and
// of BF16 tensors.
func TestCopy(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	for _, n := range elemSizes(o) {
		x := e.randn(n, 0)
		lb := label("n=%d", n)
		xt, y := e.in(x), e.out(n)
		b.Copy(y.t, xt.t)
		e.checkExact(lb, e.read(lb, y), x)

		// Concatenation: [a | b] from two sources, then a slice of it back out.
		na := n / 3
		cat := e.out(n)
		at, bt := e.in(x[:na]), e.in(x[na:])
		b.Copy(cat.t.Slice(0, na), at.t)
		b.Copy(cat.t.From(na), bt.t)
		e.checkExact(lb+" concat", e.read(lb, cat), x)
		part := e.out(n - na)
		b.Copy(part.t, cat.t.From(na))
		e.checkExact(lb+" slice", e.read(lb, part), x[na:])
		e.done(lb)
	}

	// BF16: a weight copied into an allocated BF16 tensor, read back widened.
	bits, wide := refmath.RandBF16(e.r, 1001, 1)
	w := e.weightBF16(bits)
	dst, err := b.Alloc(gpu.BF16, 1001)
	if err != nil {
		t.Fatalf("Alloc(BF16, 1001): %v", err)
	}
	defer b.Free(dst)
	b.Copy(dst.Slice(1, 1001), w.t.Slice(0, 1000))
	b.Copy(dst.Slice(0, 1), w.t.Slice(1000, 1001))
	got := make([]float32, 1001)
	if err := b.Read(got, dst); err != nil {
		t.Fatalf("bf16: Read: %v", err)
	}
	want := append(f32(wide[1000:]), f32(wide[:1000])...)
	e.checkExact("bf16", got, want)
	e.done("bf16")
}

// TestRoPE checks both rotary layouts on strided rows, on views at an offset inside the row.
func TestRoPE(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	// seq, heads, headDim, offset of the view in the row.
	for _, sh := range [][4]int{{1, 1, 2, 0}, {7, 3, 8, 0}, {129, 2, 128, 0}, {5, 24, 128, 0}, {9, 2, 16, 32}, {130, 3, 128, 384}} {
		seq, heads, hd, off := sh[0], sh[1], sh[2], sh[3]
		for _, interleaved := range []bool{false, true} {
			stride := off + heads*hd + 3
			x := e.randn(seq*stride, 0)
			cos, sin := make([]float32, seq*hd), make([]float32, seq*hd)
			for i := range cos {
				a := e.r.Float64() * 2 * math.Pi
				cos[i], sin[i] = float32(math.Cos(a)), float32(math.Sin(a))
			}
			want := make([]float64, 0, seq*heads*hd)
			for s := 0; s < seq; s++ {
				c, sn := refmath.Widen(cos[s*hd:(s+1)*hd]), refmath.Widen(sin[s*hd:(s+1)*hd])
				for h := 0; h < heads; h++ {
					v := refmath.Widen(x[s*stride+off+h*hd : s*stride+off+(h+1)*hd])
					o := make([]float64, hd)
					for i := range o {
						var rot float64 // the partner element, sign included
						switch {
						case interleaved && i%2 == 0:
							rot = -v[i+1]
						case interleaved:
							rot = v[i-1]
						case i < hd/2:
							rot = -v[i+hd/2]
						default:
							rot = v[i-hd/2]
						}
						o[i] = v[i]*c[i] + rot*sn[i]
					}
					want = append(want, o...)
				}
			}
			lb := label("seq=%d heads=%d dim=%d offset=%d interleaved=%v", seq, heads, hd, off, interleaved)
			xt := e.tensor(x, false)
			ct, st := e.in(cos, seq, hd), e.in(sin, seq, hd)
			b.RoPE(xt.t.From(off), ct.t, st.t, seq, heads, hd, stride, interleaved)
			got := e.read(lb, xt)
			e.check(lb, dense(got[off:], seq, heads*hd, stride), want, tolElem)
			e.checkUntouched(lb, got[off:], x[off:], seq, heads*hd, stride)
			for i := range off {
				if got[i] != x[i] {
					t.Fatalf("%s: element %d before the view was overwritten", lb, i)
				}
			}
			e.done(lb)
		}
	}
}
