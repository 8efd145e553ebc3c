package cpu

import (
	"fmt"
	"testing"

	"kleinbild/gpu"
)

// TestNoPanic calls every op with random small dimensions (some negative or zero) on tensors
// of random lengths, shapes and dtypes: whatever the arguments, an op must record an error or
// run, never panic.
func TestNoPanic(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := seededRand(t)
		dim := func() int { return r.IntN(6) - 1 }
		lengths := []int{0, 1, 4, 8, 12, 16, 24, 32, 48, 64}
		tensor := func() gpu.Tensor {
			switch r.IntN(8) {
			case 0:
				return gpu.Tensor{}
			case 1:
				w, _ := b.WeightBF16(make([]uint16, 12), 3, 4)
				return w
			case 2:
				w, _ := b.WeightF32(normals(r, 12, 0), 4, 3)
				return w
			}
			x, err := gpu.FromHost(b, normals(r, lengths[r.IntN(len(lengths))], 0))
			if err != nil {
				t.Fatal(err)
			}
			if x.Len() > 4 && r.IntN(4) == 0 {
				x = x.Slice(2, x.Len()-1)
			}
			return x
		}
		var ran [24]int
		for it := range 20000 {
			ts := [4]gpu.Tensor{tensor(), tensor(), tensor(), tensor()}
			d := [8]int{dim(), dim(), dim(), dim(), dim(), dim(), dim(), dim()}
			op := it % 24
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("op %d with dims %v on %v panicked: %v", op, d, ts, p)
					}
				}()
				callOp(b, op, ts, d)
			}()
			if b.Sync() == nil {
				ran[op]++
			}
			if it%1000 == 0 {
				for _, x := range ts {
					b.Free(x)
				}
			}
		}
		t.Logf("ops that ran without error, per op: %v", ran)
	})
}

func callOp(b *Backend, op int, ts [4]gpu.Tensor, d [8]int) {
	y, x, p, q := ts[0], ts[1], ts[2], ts[3]
	switch op {
	case 0:
		b.Linear(y, x, p, q, d[0])
	case 1:
		b.Attention(y, x, p, q, gpu.AttnParams{SeqQ: d[0], SeqK: d[1], Heads: d[2], KVHeads: d[3], HeadDim: d[4],
			QStride: d[5], KStride: d[6], Causal: d[7]%2 == 0, KeyValid: d[7]})
	case 2:
		b.RMSNorm(y, x, p, d[0], d[1], 1e-6)
	case 3:
		b.HeadRMSNorm(x, p, d[0], d[1], d[2], d[3], 1e-6)
	case 4:
		b.LayerNorm(y, x, p, q, d[0], d[1], 1e-6)
	case 5:
		b.GroupNorm(y, x, p, q, d[0], d[1], d[2], 1e-6)
	case 6:
		b.SiLU(y, x)
	case 7:
		b.SwiGLU(y, x, d[0], d[1], d[2], d[3])
	case 8:
		b.Add(y, x, p)
	case 9:
		b.Mul(y, x, p)
	case 10:
		b.GatedAdd(y, x, p, d[0], d[1])
	case 11:
		b.AddScaled(y, x, 0.5)
	case 12:
		b.Guidance(y, x, 3)
	case 13:
		b.Copy(y, x)
	case 14:
		b.RoPE(x, p, q, d[0], d[1], d[2], d[3], d[4]%2 == 0)
	case 15:
		cp := gpu.ConvParams{InC: d[0], InH: d[1], InW: d[2], KH: d[3], KW: d[4], Stride: d[5], PadTop: d[6], PadRight: d[7]}
		if _, k, ok := gpu.MatrixDims(p); ok && cp.KH > 0 && cp.KW > 0 && k%(cp.KH*cp.KW) == 0 {
			cp.InC = k / (cp.KH * cp.KW) // a kernel that fits, so that some calls run
		}
		b.Conv2D(y, x, p, q, cp)
	case 16:
		b.UpsampleNearest2x(y, x, d[0], d[1], d[2])
	case 17:
		b.Transpose(y, x, d[0], d[1])
	case 18:
		b.Patchify(y, x, d[0], d[1], d[2])
	case 19:
		b.Unpatchify(y, x, d[0], d[1], d[2])
	case 20:
		b.BatchNorm(y, x, p, q, d[0], d[1], d[2]%2 == 0)
	case 21:
		b.Upload(y, make([]float32, max(d[0], 0)))
	case 22:
		_ = b.Read(make([]float32, max(d[0], 0)), y)
	case 23:
		b.Free(y)
	default:
		panic(fmt.Sprint("no op ", op))
	}
}
