package gputest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// TestAllocUploadRead checks the round trip of host data through Alloc, Upload and Read (also
// on views at offsets), FromHost and ToHost, and Read of F32 and BF16 weights (BF16 widened
// exactly).
func TestAllocUploadRead(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	for _, shape := range [][]int{{1}, {7, 13}, {3, 5, 7}, {100003}} {
		n := 1
		for _, s := range shape {
			n *= s
		}
		lb := label("shape=%v", shape)
		x, err := b.Alloc(gpu.F32, shape...)
		if err != nil {
			t.Fatalf("%s: Alloc: %v", lb, err)
		}
		if x.Len() != n || x.DType() != gpu.F32 || !slices.Equal(x.Shape(), shape) || x.IsZero() {
			t.Fatalf("%s: Alloc returned %v with %d values", lb, x, x.Len())
		}
		if x.Buffer().Bytes() < int64(4*n) {
			t.Errorf("%s: buffer of %d bytes for %d f32 values", lb, x.Buffer().Bytes(), n)
		}
		data := e.randn(n, 0)
		b.Upload(x, data)
		got := make([]float32, n)
		if err := b.Read(got, x); err != nil {
			t.Fatalf("%s: Read: %v", lb, err)
		}
		e.checkExact(lb, got, data)

		// Upload into and Read from a view at an offset: the rest stays.
		if n > 3 {
			lo, hi := 1, n-n/3
			part := e.randn(hi-lo, 5)
			b.Upload(x.Slice(lo, hi), part)
			want := slices.Clone(data)
			copy(want[lo:], part)
			if err := b.Read(got, x); err != nil {
				t.Fatalf("%s: Read: %v", lb, err)
			}
			e.checkExact(lb+" upload view", got, want)
			sub := make([]float32, hi-lo-1)
			if err := b.Read(sub, x.Slice(lo+1, hi)); err != nil {
				t.Fatalf("%s: Read view: %v", lb, err)
			}
			e.checkExact(lb+" read view", sub, want[lo+1:hi])
		}
		b.Free(x)

		// FromHost and ToHost.
		h, err := gpu.FromHost(b, data, shape...)
		if err != nil {
			t.Fatalf("%s: FromHost: %v", lb, err)
		}
		back, err := gpu.ToHost(b, h)
		if err != nil {
			t.Fatalf("%s: ToHost: %v", lb, err)
		}
		e.checkExact(lb+" FromHost", back, data)
		b.Free(h)
	}

	// Weights read back exactly, BF16 widened; views at odd offsets too.
	wf := e.randn(1001, 0)
	w, err := b.WeightF32(wf, 7, 143)
	if err != nil {
		t.Fatalf("WeightF32: %v", err)
	}
	if w.DType() != gpu.F32 || !slices.Equal(w.Shape(), []int{7, 143}) {
		t.Fatalf("WeightF32 returned %v", w)
	}
	got, err := gpu.ToHost(b, w)
	if err != nil {
		t.Fatalf("WeightF32: Read: %v", err)
	}
	e.checkExact("WeightF32", got, wf)
	b.Free(w)

	bits, wide := refmath.RandBF16(e.r, 1001, 3)
	bits[0], bits[1], bits[2] = 0x7f80, 0xff80, 0x8000 // +Inf, −Inf, −0
	wide[0], wide[1], wide[2] = math.Inf(1), math.Inf(-1), math.Copysign(0, -1)
	wb, err := b.WeightBF16(bits, 11, 91)
	if err != nil {
		t.Fatalf("WeightBF16: %v", err)
	}
	if wb.DType() != gpu.BF16 || !slices.Equal(wb.Shape(), []int{11, 91}) {
		t.Fatalf("WeightBF16 returned %v", wb)
	}
	for _, r := range [][2]int{{0, 1001}, {1, 1001}, {3, 4}, {500, 999}} {
		lb := label("WeightBF16[%d:%d]", r[0], r[1])
		got, err := gpu.ToHost(b, wb.Slice(r[0], r[1]))
		if err != nil {
			t.Fatalf("%s: Read: %v", lb, err)
		}
		for i, v := range got {
			if math.Float32bits(v) != math.Float32bits(float32(wide[r[0]+i])) {
				t.Fatalf("%s: element %d = %v, want %v", lb, i, v, wide[r[0]+i])
			}
		}
	}
	b.Free(wb)
	e.sync("weights")
}

// TestMemory checks the accounting of Memory: Alloc raises Resident (weights raise Resident
// or Viewed), Free lowers it back, Peak ≥ Resident, ResetPeak sets Peak to Resident.
func TestMemory(t *testing.T, b gpu.Backend, o Options) {
	newEnv(t, b, o)
	check := func(when string, m gpu.MemStats) {
		t.Helper()
		if m.Resident < 0 || m.Viewed < 0 || m.Peak < m.Resident {
			t.Errorf("%s: Memory() = %+v", when, m)
		}
	}
	m0 := b.Memory()
	check("start", m0)
	const n1, n2 = 1 << 20, 300001
	x, err := b.Alloc(gpu.F32, n1)
	if err != nil {
		t.Fatalf("Alloc: %v", err)
	}
	m1 := b.Memory()
	check("after Alloc", m1)
	if m1.Resident-m0.Resident < 4*n1 {
		t.Errorf("Alloc(F32, %d): Resident went from %d to %d", n1, m0.Resident, m1.Resident)
	}
	y, err := b.Alloc(gpu.F32, n2)
	if err != nil {
		t.Fatalf("Alloc: %v", err)
	}
	m2 := b.Memory()
	check("after second Alloc", m2)
	if m2.Resident-m1.Resident < 4*n2 || m2.Peak < m2.Resident {
		t.Errorf("Alloc(F32, %d): Memory went from %+v to %+v", n2, m1, m2)
	}
	b.Free(x)
	m3 := b.Memory()
	check("after Free", m3)
	if m2.Resident-m3.Resident < 4*n1 || m3.Peak < m2.Resident {
		t.Errorf("Free of %d f32: Memory went from %+v to %+v", n1, m2, m3)
	}
	b.ResetPeak()
	if m := b.Memory(); m.Peak != m.Resident || m.Resident != m3.Resident {
		t.Errorf("after ResetPeak: Memory() = %+v, want Peak = Resident = %d", m, m3.Resident)
	}
	b.Free(y)
	if m := b.Memory(); m.Resident != m0.Resident || m.Peak != m3.Resident {
		t.Errorf("after freeing everything: Memory() = %+v, want Resident %d, Peak %d", m, m0.Resident, m3.Resident)
	}
	b.Free(gpu.Tensor{}) // nothing

	// Weights are held (Resident) or viewed (Viewed), and Free lets go of them.
	before := b.Memory()
	w, err := b.WeightBF16(make([]uint16, n2), n2)
	if err != nil {
		t.Fatalf("WeightBF16: %v", err)
	}
	during := b.Memory()
	if grown := during.Resident + during.Viewed - before.Resident - before.Viewed; grown < 2*n2 {
		t.Errorf("WeightBF16 of %d values: Memory went from %+v to %+v", n2, before, during)
	}
	b.Free(w)
	if after := b.Memory(); after.Resident != before.Resident || after.Viewed != before.Viewed {
		t.Errorf("Free of a weight: Memory went from %+v to %+v", before, after)
	}
	if err := b.Sync(); err != nil {
		t.Errorf("Sync: %v", err)
	}
}

// foreign is a Buffer of no backend.
type foreign struct{}

func (foreign) Bytes() int64 { return 1 << 20 }

// TestErrors checks the sticky errors: every op given bad arguments neither panics nor runs,
// the next Sync (Flush, Read) returns an error naming the op, and the one after returns nil.
func TestErrors(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	f := func(n int) gpu.Tensor { return e.in(e.randn(n, 0)).t }
	x7, x8, x16, x64 := f(7), f(8), f(16), f(64)
	y8, y64 := e.out(8).t, e.out(64).t
	w := e.weight(e.randn(32, 0), 4, 8)
	wbf := e.weightBF16(make([]uint16, 32), 4, 8)
	flat := e.weight(e.randn(32, 0)) // not a matrix
	alien := gpu.NewTensor(foreign{}, 0, gpu.F32, 64)
	ap := gpu.AttnParams{SeqQ: 4, SeqK: 4, Heads: 2, HeadDim: 8}
	cp := gpu.ConvParams{InC: 1, InH: 4, InW: 4, KH: 3, KW: 3, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
	k9 := e.weight(e.randn(18, 0), 2, 9)

	bad := []struct {
		op   string
		call func()
	}{
		{"Linear", func() { b.Linear(y8, x16, w.t, gpu.Tensor{}, 3) }},                    // y too short
		{"Linear", func() { b.Linear(y64, x7, w.t, gpu.Tensor{}, 1) }},                    // x too short
		{"Linear", func() { b.Linear(y64, x16, flat.t, gpu.Tensor{}, 2) }},                // w not [out, in]
		{"Linear", func() { b.Linear(y64, gpu.Tensor{}, w.t, gpu.Tensor{}, 1) }},          // x missing
		{"Linear", func() { b.Linear(y64, x16, wbf.t, x7.Slice(0, 3), 2) }},               // bias short
		{"Linear", func() { b.Linear(y64, alien, w.t, gpu.Tensor{}, 2) }},                 // another backend's x
		{"Linear", func() { b.Linear(y64, x16, w.t, gpu.Tensor{}, -1) }},                  // negative rows
		{"Attention", func() { b.Attention(y64, x64, x64, x16, ap) }},                     // v too short
		{"Attention", func() { b.Attention(y64, x64, x64, x64, with(ap, "KVHeads", 3)) }}, // heads % kvHeads
		{"Attention", func() { b.Attention(y64, x64, x16, x16, with(ap, "Causal", 1)) }},  // causal with SeqQ ≠ SeqK
		{"Attention", func() { b.Attention(y8, x64, x64, x64, ap) }},                      // out too short
		{"RMSNorm", func() { b.RMSNorm(y64, x16, gpu.Tensor{}, 2, 16, 1e-6) }},            // x too short
		{"RMSNorm", func() { b.RMSNorm(y64, x64, x7, 4, 16, 1e-6) }},                      // weight too short
		{"HeadRMSNorm", func() { b.HeadRMSNorm(x64, gpu.Tensor{}, 4, 16, 3, 8, 1e-6) }},   // heads·headDim > stride
		{"HeadRMSNorm", func() { b.HeadRMSNorm(x16, gpu.Tensor{}, 4, 16, 2, 8, 1e-6) }},   // x too short
		{"LayerNorm", func() { b.LayerNorm(y8, x64, gpu.Tensor{}, gpu.Tensor{}, 4, 16, 1e-6) }},
		{"LayerNorm", func() { b.LayerNorm(y64, x64, x8, gpu.Tensor{}, 4, 16, 1e-6) }}, // scale too short
		{"GroupNorm", func() { b.GroupNorm(y64, x64, gpu.Tensor{}, gpu.Tensor{}, 8, 8, 3, 1e-6) }},
		{"GroupNorm", func() { b.GroupNorm(y64, x64, x7, gpu.Tensor{}, 8, 8, 2, 1e-6) }},
		{"SiLU", func() { b.SiLU(y8, x7) }},
		{"SwiGLU", func() { b.SwiGLU(y64, x64, 4, 8, 15, 8) }},           // xStride < 2·hidden
		{"SwiGLU", func() { b.SwiGLU(y8, x64, 4, 8, 16, 8) }},            // y too short
		{"Add", func() { b.Add(y8, x8, x7) }},                            // unequal lengths
		{"Mul", func() { b.Mul(y8, gpu.Tensor{}, x8) }},                  // missing operand
		{"Mul", func() { b.Mul(y8, wbf.t.Slice(0, 8), x8) }},             // bf16 operand
		{"GatedAdd", func() { b.GatedAdd(y64, x64, x7, 8, 8) }},          // gate too short
		{"AddScaled", func() { b.AddScaled(y8, x7, 2) }},                 // unequal lengths
		{"Guidance", func() { b.Guidance(y8, x16, 4) }},                  // unequal lengths
		{"Copy", func() { b.Copy(y8, x7) }},                              // unequal lengths
		{"Copy", func() { b.Copy(y8, wbf.t.Slice(0, 8)) }},               // unequal dtypes
		{"RoPE", func() { b.RoPE(x64, x16, x16, 2, 2, 7, 16, true) }},    // odd headDim
		{"RoPE", func() { b.RoPE(x64, x8, x16, 2, 2, 8, 16, false) }},    // cos too short
		{"Conv2D", func() { b.Conv2D(y64, x16, w.t, gpu.Tensor{}, cp) }}, // kernel not [OutC, 9]
		{"Conv2D", func() { b.Conv2D(y8, x16, k9.t, gpu.Tensor{}, cp) }}, // out too short
		{"Conv2D", func() { b.Conv2D(y64, x8, k9.t, gpu.Tensor{}, cp) }}, // in too short
		{"UpsampleNearest2x", func() { b.UpsampleNearest2x(y8, x8, 2, 2, 2) }},
		{"Transpose", func() { b.Transpose(y8, x16, 4, 4) }},
		{"Patchify", func() { b.Patchify(y64, x64, 4, 4, 3) }},               // odd width
		{"Unpatchify", func() { b.Unpatchify(y64, x64, 6, 2, 2) }},           // c not a multiple of 4
		{"BatchNorm", func() { b.BatchNorm(y64, x64, x7, x8, 8, 8, false) }}, // mean too short
		{"Upload", func() { b.Upload(y8, make([]float32, 7)) }},
		{"Upload", func() { b.Upload(wbf.t, make([]float32, 32)) }}, // into a bf16 weight
	}
	for _, c := range bad {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s with bad arguments panicked: %v", c.op, r)
				}
			}()
			c.call()
		}()
		err := b.Sync()
		if err == nil {
			t.Errorf("%s with bad arguments: Sync returned nil", c.op)
		} else if !strings.Contains(err.Error(), c.op) {
			t.Errorf("%s with bad arguments: Sync returned %q, which does not name the op", c.op, err)
		} else if o.LogErrors {
			t.Logf("%s: %v", c.op, err)
		}
		if err := b.Sync(); err != nil {
			t.Errorf("%s: the second Sync returned %v, want nil (errors are cleared)", c.op, err)
		}
	}

	// The first error is kept through later (good and bad) ops and comes back from Flush and
	// Read too.
	b.SiLU(y8, x7)
	b.SiLU(y8, x8)
	b.Add(y8, x8, x16)
	if err := b.Flush(); err == nil || !strings.Contains(err.Error(), "SiLU") {
		t.Errorf("Flush after a bad SiLU and a bad Add returned %v, want the SiLU error", err)
	}
	if err := b.Flush(); err != nil {
		t.Errorf("second Flush: %v", err)
	}
	b.Transpose(y8, x16, 4, 4)
	buf := make([]float32, 8)
	if err := b.Read(buf, x8); err == nil {
		t.Errorf("Read after a bad Transpose returned nil")
	}
	if err := b.Read(buf, x8); err != nil {
		t.Errorf("second Read: %v", err)
	}

	// Read itself with bad arguments.
	if err := b.Read(make([]float32, 7), x8); err == nil {
		t.Errorf("Read into 7 values of a tensor of 8 returned nil")
	}
	if err := b.Read(make([]float32, 64), alien); err == nil {
		t.Errorf("Read of another backend's tensor returned nil")
	}
	if err := b.Sync(); err != nil {
		t.Errorf("Sync after bad Reads: %v", err)
	}

	// A weight passed as an output is refused or left unchanged.
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("SiLU into a weight panicked: %v", r)
			}
		}()
		b.SiLU(w.t.Slice(0, 8), x8)
	}()
	if err := b.Sync(); err == nil {
		e.read("weight as output", w)
	}

	// Freeing another backend's tensor or the zero Tensor, and using a freed tensor, must not
	// panic; whatever they report is cleared by the next Sync.
	for _, c := range []struct {
		name string
		call func()
	}{
		{"Free(another backend's tensor)", func() { b.Free(alien) }},
		{"Free(zero Tensor)", func() { b.Free(gpu.Tensor{}) }},
		{"SiLU on a freed tensor", func() {
			z, err := b.Alloc(gpu.F32, 64)
			if err != nil {
				t.Fatalf("Alloc: %v", err)
			}
			b.Free(z)
			b.SiLU(z, z)
			b.Add(y64, z, x64)
		}},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked: %v", c.name, r)
				}
			}()
			c.call()
		}()
		err := b.Sync()
		if o.LogErrors {
			t.Logf("%s: Sync returned %v", c.name, err)
		}
		if err := b.Sync(); err != nil {
			t.Errorf("%s: the second Sync returned %v, want nil", c.name, err)
		}
	}
	if err := b.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	e.intact("after bad calls")
}

// with returns p with one field changed (for the bad-argument table).
func with(p gpu.AttnParams, field string, v int) gpu.AttnParams {
	switch field {
	case "KVHeads":
		p.KVHeads = v
	case "Causal":
		p.Causal = v != 0
		p.SeqK = p.SeqQ / 2
	}
	return p
}

// TestConcurrentUse runs Linear, Attention and Conv2D from several goroutines on one backend:
// results must not depend on what runs beside them (run with -race to check scratch pools).
// Skipped with Options.NoConcurrency.
func TestConcurrentUse(t *testing.T, b gpu.Backend, o Options) {
	if o.NoConcurrency {
		t.Skip("backend does not support concurrent use")
	}
	e := newEnv(t, b, o)
	const rows, in, out = 9, 64, 300
	x := e.randn(rows*in, 0)
	bits, wide := refmath.RandBF16(e.r, out*in, 0.1)
	wantLin := refLinear(e.bf16Activations(x), rows, in, out, wide, nil)
	if o.F16Linear {
		wantLin = e.f16Linear(x, rows, in, out, wide)
	}
	ap := gpu.AttnParams{SeqQ: 130, SeqK: 130, Heads: 2, HeadDim: 8, Causal: true}
	q, k, v := e.randn(130*16, 0), e.randn(130*16, 0), e.randn(130*16, 0)
	wantAttn := refAttention(q, k, v, ap)
	cp := gpu.ConvParams{InC: 3, InH: 9, InW: 9, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}
	img := e.randn(3*81, 0)
	cbits, cwide := refmath.RandBF16(e.r, 4*27, 0.2)
	wantConv := refConv(img, cwide, nil, 4, cp)
	if o.F16Conv {
		wantConv = refConv(refmath.F16Image(img, 3, 81), refmath.F16Weights(cwide), nil, 4, cp)
	}
	tols := []float64{1e-4, 1e-4, 1e-4} // per element, relative to 1 + |want|
	if o.F16Attention {
		tols[1] = 5 * TolF16Attention // float16 tiles: no emulation here
	}

	xt, wt := e.in(x, rows, in), e.weightBF16(bits, out, in)
	qt, kt, vt := e.in(q), e.in(k), e.in(v)
	it, ct := e.in(img, 3, 9, 9), e.weightBF16(cbits, 4, 27)

	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs := make([]gpu.Tensor, 3)
			for i, n := range []int{rows * out, 130 * 16, 4 * 25} {
				var err error
				if outs[i], err = b.Alloc(gpu.F32, n); err != nil {
					errs <- fmt.Sprintf("goroutine %d: Alloc: %v", g, err)
					return
				}
				defer b.Free(outs[i])
			}
			for it2 := 0; it2 < 5; it2++ {
				for _, o := range outs {
					b.Upload(o, refmath.NaNs(o.Len()))
				}
				b.Linear(outs[0], xt.t, wt.t, gpu.Tensor{}, rows)
				b.Attention(outs[1], qt.t, kt.t, vt.t, ap)
				b.Conv2D(outs[2], it.t, ct.t, gpu.Tensor{}, cp)
				for i, want := range [][]float64{wantLin, wantAttn, wantConv} {
					got := make([]float32, outs[i].Len())
					if err := b.Read(got, outs[i]); err != nil {
						errs <- fmt.Sprintf("goroutine %d: Read: %v", g, err)
						return
					}
					for j, w := range want {
						if !(math.Abs(float64(got[j])-w) <= tols[i]*(1+math.Abs(w))) {
							errs <- fmt.Sprintf("goroutine %d: output %d element %d = %v, want %v", g, i, j, got[j], w)
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	e.done("concurrent")
}
