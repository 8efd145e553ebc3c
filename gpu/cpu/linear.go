package cpu

import (
	"math"

	"kleinbild/gpu/quant"
)

// bf16TileFloats bounds the widened weight tile of a bf16 Linear (32 MiB of float32). Each
// tile is one Sgemm, and every Sgemm call re-packs all of x: with 256-row tiles the bf16 path
// ran about 20% below f32 weights on the FLUX/Qwen shapes, with tiles of this size it runs
// within a few percent of them.
const bf16TileFloats = 8 << 20

// bf16TileRows is the number of weight rows widened per tile: as many as fit bf16TileFloats,
// a multiple of 64, at least 256.
func bf16TileRows(in, out int) int {
	rows := max(256, (bf16TileFloats/max(in, 1))&^63)
	return max(min(rows, out), 0)
}

// LinearScratchFloats is the pooled scratch (float32 values) of a Linear by a weight [out, in]:
// the weight tile (bf16 widened, quantized decoded, f32 copied). Linear by bf16 weights on a
// BF16MatMuler copies its tiles as bf16, twice the rows in as many bytes.
func LinearScratchFloats(in, out int) int { return bf16TileRows(in, out) * in }

// linear computes y[rows, w.out] = x[rows, w.in]·Wᵀ (+ bias if non-nil), as torch.nn.Linear.
//
// BF16 weights on a backend without native bf16 are widened a tile of rows at a time (up to
// 32 MiB, see bf16TileFloats), in parallel, into a pooled buffer, and each tile is one Sgemm
// into the matching columns of y. Widening is exact, so the result matches a float64 product
// of the bf16 weights up to float32 accumulation error.
//
// F32 weights are copied into the same tiles in Go rather than handed to the provider (package
// documentation, "Mapped weights").
func (b *Backend) linear(y, x []float32, rows int, w matrix, bias []float32) {
	if rows == 0 || w.out == 0 {
		return
	}
	if w.isBF16 && w.in > 0 && b.bf16 != nil {
		b.linearNativeBF16(y, x, rows, w)
	} else {
		b.linearScaled(y, x, rows, w, 1, 0)
	}
	if bias != nil {
		b.parallel(rows, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				row := y[r*w.out : (r+1)*w.out]
				for j, bv := range bias[:w.out] {
					row[j] += bv
				}
			}
		})
	}
}

// linearScaled computes y = alpha·x·Wᵀ + beta·y (beta 0: y is only written) a tile of weight
// rows at a time (bf16TileRows): f32 weights copied, bf16 ones widened and quantized ones
// dequantized (exactly, by package quant) into a pooled float32 tile on the workers, each
// tile one Sgemm into the matching columns of y. No full-size float32 copy of the weight is
// made. It stops between tiles once the backend is interrupted.
func (b *Backend) linearScaled(y, x []float32, rows int, w matrix, alpha, beta float32) {
	if rows == 0 || w.out == 0 {
		return
	}
	if w.in == 0 { // an empty product (providers reject a zero stride)
		if beta == 0 {
			clear(y[:rows*w.out])
		}
		return
	}
	fill := func(tile []float32, o, n int) { b.copyParallel(tile, w.f32[o*w.in:(o+n)*w.in]) }
	switch {
	case w.quant != nil:
		decode := quant.Decoder(w.qtype)
		rowBytes := int(w.qtype.PackedBytes(w.in))
		fill = func(tile []float32, o, n int) {
			b.parallel(n, func(lo, hi int) {
				decode(tile[lo*w.in:hi*w.in], w.quant[(o+lo)*rowBytes:(o+hi)*rowBytes])
			})
		}
	case w.isBF16:
		fill = func(tile []float32, o, n int) { b.widenParallel(tile, w.bf16[o*w.in:(o+n)*w.in]) }
	}
	tileRows := bf16TileRows(w.in, w.out)
	buf := b.linearTiles.get(tileRows * w.in)
	defer b.linearTiles.put(buf)
	for o := 0; o < w.out && !b.interrupted(); o += tileRows {
		n := min(tileRows, w.out-o)
		tile := (*buf)[:n*w.in]
		fill(tile, o, n)
		b.blas.Sgemm(false, true, rows, n, w.in, alpha, x, w.in, tile, w.in, beta, y[o:], w.out)
	}
}

// linearNativeBF16 is linear by a bf16 weight on a BF16MatMuler: a tile of weight rows at a
// time is copied in Go into a pooled buffer (package documentation, "Mapped weights") and
// multiplied into the matching columns of y. It stops between tiles once the backend is
// interrupted.
func (b *Backend) linearNativeBF16(y, x []float32, rows int, w matrix) {
	// Twice the rows of a float32 tile: the same bytes, and fewer (larger) products.
	tileRows := max(min(max(256, (2*bf16TileFloats/max(w.in, 1))&^63), w.out), 0)
	size := tileRows * w.in
	buf, ok := b.bitsTiles.Get().(*[]uint16)
	if !ok || cap(*buf) < size {
		s := make([]uint16, size)
		buf = &s
	}
	defer b.bitsTiles.Put(buf)
	for o := 0; o < w.out && !b.interrupted(); o += tileRows {
		n := min(tileRows, w.out-o)
		tile := (*buf)[:n*w.in]
		src := w.bf16[o*w.in : (o+n)*w.in]
		const grain = 1 << 16
		b.parallel((len(src)+grain-1)/grain, func(lo, hi int) {
			copy(tile[lo*grain:min(hi*grain, len(src))], src[lo*grain:min(hi*grain, len(src))])
		})
		b.bf16.MatMulBF16(y[o:], x, rows, n, w.in, tile, w.out)
	}
}

// copyParallel copies src into dst, split over the workers.
func (b *Backend) copyParallel(dst, src []float32) {
	dst = dst[:len(src)]
	const grain = 1 << 15 // values per task below which splitting is not worth a goroutine
	b.parallel((len(src)+grain-1)/grain, func(lo, hi int) {
		copy(dst[lo*grain:min(hi*grain, len(src))], src[lo*grain:min(hi*grain, len(src))])
	})
}

// widenParallel converts src (bfloat16 bits) into dst, split over the workers.
func (b *Backend) widenParallel(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	const grain = 1 << 14 // values per task below which splitting is not worth a goroutine
	b.parallel((len(src)+grain-1)/grain, func(lo, hi int) {
		widenBF16(dst[lo*grain:min(hi*grain, len(src))], src[lo*grain:min(hi*grain, len(src))])
	})
}

// widenBF16Go converts bfloat16 bits to float32: dst[i] = bf16(src[i]) for i < len(src).
func widenBF16Go(dst []float32, src []uint16) {
	dst = dst[:len(src)] // one bounds check for the loop
	for i, b := range src {
		dst[i] = math.Float32frombits(uint32(b) << 16)
	}
}
