package cpu

import (
	"math"
	"sync"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// The ops that moved here from the engine must keep its float32 rounding bit for bit: each is
// compared with the engine's former code, restated plainly.

// sameBits reports (with t.Errorf, so that goroutines may call it) whether got and want are
// equal bit for bit.
func sameBits(t *testing.T, label string, got, want []float32) bool {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", label, len(got), len(want))
		return false
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("%s: element %d = %v, want %v", label, i, got[i], want[i])
			return false
		}
	}
	return true
}

func TestPortedOpsExact(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := seededRand(t)
		const rows, dim = 7, 37
		xh, yh, gh := normals(r, rows*dim, 0.5), normals(r, rows*dim, 0), normals(r, dim, 0)
		x, y, g := mustF32(t, b, xh), mustF32(t, b, yh), mustF32(t, b, gh)

		// GatedAdd: flux2 gatedAdd.
		b.GatedAdd(x, y, g, rows, dim)
		want := append([]float32(nil), xh...)
		for rr := range rows {
			for i, gv := range gh {
				want[rr*dim+i] += float32(gv * yh[rr*dim+i])
			}
		}
		sameBits(t, "GatedAdd", mustRead(t, b, x), want)

		// AddScaled: sched.EulerStep with dt = sigmaNext − sigma.
		b.Upload(x, xh)
		dt := float32(0.3) - float32(0.55)
		b.AddScaled(x, y, dt)
		for i := range want {
			want[i] = xh[i] + float32(dt*yh[i])
		}
		sameBits(t, "AddScaled", mustRead(t, b, x), want)

		// Guidance: generate.go's CFG.
		b.Upload(x, xh)
		b.Guidance(x, y, 4.5)
		for i := range want {
			u := yh[i]
			want[i] = u + float32(4.5*float32(xh[i]-u))
		}
		sameBits(t, "Guidance", mustRead(t, b, x), want)

		// LayerNorm with (1 + scale) and shift: flux2 modNorm over the LayerNorm kernel.
		out := mustAlloc(t, b, rows*dim)
		b.LayerNorm(out, y, g, mustF32(t, b, xh[:dim]), rows, dim, 1e-6)
		scale1 := make([]float32, dim)
		for i, s := range gh {
			scale1[i] = 1 + s
		}
		ref := make([]float32, rows*dim)
		b.layerNorm(ref, yh, rows, dim, 1e-6, scale1, xh[:dim])
		sameBits(t, "LayerNorm", mustRead(t, b, out), ref)
		b.LayerNorm(out, y, gpu.Tensor{}, gpu.Tensor{}, rows, dim, 1e-6)
		b.layerNorm(ref, yh, rows, dim, 1e-6, nil, nil)
		sameBits(t, "LayerNorm plain", mustRead(t, b, out), ref)

		// HeadRMSNorm: flux2 rmsNormHeads = RMSNorm per head slice.
		const heads, hd, stride = 3, 8, 29
		hx := normals(r, 5*stride, 0)
		hw := normals(r, hd, 1)
		ht, hwt := mustF32(t, b, hx), mustF32(t, b, hw)
		b.HeadRMSNorm(ht, hwt, 5, stride, heads, hd, 1e-6)
		want = append([]float32(nil), hx...)
		for rr := range 5 {
			for h := range heads {
				v := want[rr*stride+h*hd : rr*stride+(h+1)*hd]
				b.rmsNorm(v, v, 1, hd, 1e-6, hw)
			}
		}
		sameBits(t, "HeadRMSNorm", mustRead(t, b, ht), want)

		// SwiGLU: strided equals dense row by row, gaps untouched.
		const sr, hid, xs, ys = 4, 6, 15, 9
		sx := normals(r, sr*xs, 0)
		st, so := mustF32(t, b, sx), mustF32(t, b, refmath.NaNs(sr*ys))
		b.SwiGLU(so, st, sr, hid, xs, ys)
		got := mustRead(t, b, so)
		for rr := range sr {
			dense := make([]float32, hid)
			b.swiGLU(dense, sx[rr*xs:rr*xs+2*hid], 1, hid, 2*hid, hid)
			if !sameBits(t, "SwiGLU row", got[rr*ys:rr*ys+hid], dense) {
				return
			}
			for _, v := range got[rr*ys+hid : min((rr+1)*ys, len(got))] {
				if !math.IsNaN(float64(v)) {
					t.Fatalf("SwiGLU wrote into the gap of row %d", rr)
				}
			}
		}

		// BatchNorm: vae Normalize ((e − m)/s) and Denormalize (float32(e·s) + m).
		const ch, hwn = 4, 10
		bx := normals(r, ch*hwn, 0)
		mean, std := normals(r, ch, 0), normals(r, ch, 3)
		bt, mt, stt := mustF32(t, b, bx), mustF32(t, b, mean), mustF32(t, b, std)
		bo := mustAlloc(t, b, ch*hwn)
		for _, inv := range []bool{false, true} {
			b.BatchNorm(bo, bt, mt, stt, ch, hwn, inv)
			for c := range ch {
				for i := range hwn {
					e := bx[c*hwn+i]
					if inv {
						ref[c*hwn+i] = float32(e*std[c]) + mean[c]
					} else {
						ref[c*hwn+i] = (e - mean[c]) / std[c]
					}
				}
			}
			sameBits(t, "BatchNorm", mustRead(t, b, bo), ref[:ch*hwn])
		}

		// Patchify then Unpatchify is the identity; Transpose twice too.
		const pc, ph, pw = 3, 4, 6
		px := normals(r, pc*ph*pw, 0)
		pt, p1, p2 := mustF32(t, b, px), mustAlloc(t, b, pc*ph*pw), mustAlloc(t, b, pc*ph*pw)
		b.Patchify(p1, pt, pc, ph, pw)
		pg := mustRead(t, b, p1)
		if pg[(1*4+1*2+0)*(ph/2)*(pw/2)+1*(pw/2)+2] != px[1*ph*pw+(2*1+1)*pw+2*2] {
			t.Error("Patchify: channel c·4 + dy·2 + dx does not hold pixel (2y+dy, 2x+dx)")
		}
		b.Unpatchify(p2, p1, 4*pc, ph/2, pw/2)
		sameBits(t, "Unpatchify(Patchify)", mustRead(t, b, p2), px)
		b.Transpose(p1, pt, 9, 8)
		if tg := mustRead(t, b, p1); tg[3*9+5] != px[5*8+3] {
			t.Error("Transpose: y[j, i] != x[i, j]")
		}
		b.Transpose(p2, p1, 8, 9)
		sameBits(t, "Transpose twice", mustRead(t, b, p2), px)
		if err := b.Sync(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestConcurrentUse runs pooled-buffer ops from several goroutines on one Backend: results
// must not depend on what runs beside them (run with -race to check the pools).
func TestConcurrentUse(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := seededRand(t)
		const rows, in, out = 9, 64, 300
		x := mustF32(t, b, normals(r, rows*in, 0), rows, in)
		bits, _ := refmath.RandBF16(r, out*in, 0.1)
		w, err := b.WeightBF16(bits, out, in)
		if err != nil {
			t.Fatal(err)
		}
		ap := gpu.AttnParams{SeqQ: 130, SeqK: 130, Heads: 2, HeadDim: 8, Causal: true}
		q, k, v := mustF32(t, b, normals(r, 130*16, 0)), mustF32(t, b, normals(r, 130*16, 0)), mustF32(t, b, normals(r, 130*16, 0))
		cp := gpu.ConvParams{InC: 3, InH: 9, InW: 9, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}
		img := mustF32(t, b, normals(r, 3*81, 0))
		cbits, _ := refmath.RandBF16(r, 4*27, 0.2)
		cw, err := b.WeightBF16(cbits, 4, 27)
		if err != nil {
			t.Fatal(err)
		}
		// run may be called from goroutines: it reports problems with t.Error only.
		run := func() (lin, attn, conv []float32) {
			y, err1 := b.Alloc(gpu.F32, rows*out)
			a, err2 := b.Alloc(gpu.F32, 130*16)
			c, err3 := b.Alloc(gpu.F32, 4*25)
			defer func() { b.Free(y); b.Free(a); b.Free(c) }()
			b.Linear(y, x, w, gpu.Tensor{}, rows)
			b.Attention(a, q, k, v, ap)
			b.Conv2D(c, img, cw, gpu.Tensor{}, cp)
			lin, err4 := gpu.ToHost(b, y)
			attn, err5 := gpu.ToHost(b, a)
			conv, err6 := gpu.ToHost(b, c)
			for _, err := range []error{err1, err2, err3, err4, err5, err6} {
				if err != nil {
					t.Error(err)
				}
			}
			return lin, attn, conv
		}
		wantLin, wantAttn, wantConv := run()
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				for range 5 {
					lin, attn, conv := run()
					if !sameBits(t, "Linear", lin, wantLin) || !sameBits(t, "Attention", attn, wantAttn) || !sameBits(t, "Conv2D", conv, wantConv) {
						return
					}
				}
			})
		}
		wg.Wait()
		if m := b.Memory(); m.Resident != int64(rows*in+3*130*16+3*81)*4 {
			t.Errorf("Resident %d after the goroutines freed their outputs", m.Resident)
		}
	})
}
