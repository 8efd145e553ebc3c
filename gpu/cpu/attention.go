package cpu

import (
	"math"

	"kleinbild/gpu"
)

// attnTile is the number of query rows whose scores are held at once: the full
// [SeqQ, SeqK] score matrix is never materialised.
const attnTile = 128

// AttentionScratchFloats is the pooled scratch (float32 values) of an Attention call over
// seqK keys (the visible ones: SeqK, or KeyValid when smaller): the scores of attnTile query
// rows and their inverse sums.
func AttentionScratchFloats(seqK int) int { return attnTile*max(seqK, 1) + attnTile }

// attention computes out = softmax(q·kᵀ·scale + mask)·v per head, with masked scores treated as
// transformers' eager attention does (finfo(float32).min added): they get weight exactly 0 as
// long as a row keeps one visible key, which causal and KeyValid > 0 masks always do.
//
// Work is split into (head, tile of attnTile query rows) items. Per item: S = scale·Q·Kᵀ over the
// visible keys only (keys past KeyValid, and for causal past the tile's last query, are skipped,
// which halves causal work), P = exp(S - rowmax) in place, O = P·V, then O rows are divided by
// the row sums (HeadDim values per row instead of SeqK).
//
// Threading policy: the items run one after another and each product is one Sgemm call that
// uses the backend's own threads (OpenBLAS and Accelerate run one call on all cores, gonum
// splits it over goroutines); the Go part of an item (mask, exp, sums) is split over the
// backend's workers by rows. Running items concurrently on goroutines (each calling Sgemm) was
// measured 2.3× slower with OpenBLAS on 2 cores: OpenBLAS serialises concurrent multi-threaded
// calls on a lock while its idle threads spin against the Go workers, and a single-threaded
// OpenBLAS would need a process-wide setting that also slows every large Linear. With purego
// both ways ran equally fast.
func (b *Backend) attention(out, q, k, v []float32, p gpu.AttnParams) {
	if p.SeqQ <= 0 || p.Heads <= 0 || p.HeadDim <= 0 || p.KVHeads <= 0 {
		return
	}
	group := max(1, p.Heads/p.KVHeads)
	visible := p.VisibleKeys()
	tiles := (p.SeqQ + attnTile - 1) / attnTile
	buf := b.attnScores.get(AttentionScratchFloats(visible))
	defer b.attnScores.put(buf)
	scores, invSums := (*buf)[:attnTile*max(visible, 1)], (*buf)[attnTile*max(visible, 1):]

	for h := 0; h < p.Heads && !b.interrupted(); h++ {
		kvh := h / group
		for t := 0; t < tiles; t++ {
			q0 := t * attnTile
			nq := min(attnTile, p.SeqQ-q0)
			nk := visible
			if p.Causal {
				nk = min(nk, q0+nq)
			}
			o := out[q0*p.OutStride+h*p.HeadDim:]
			if nk <= 0 {
				// No keys: an empty softmax times V is zero.
				for i := 0; i < nq; i++ {
					clear(o[i*p.OutStride : i*p.OutStride+p.HeadDim])
				}
				continue
			}
			s := scores[:nq*nk]
			b.blas.Sgemm(false, true, nq, nk, p.HeadDim, p.Scale,
				q[q0*p.QStride+h*p.HeadDim:], p.QStride,
				k[kvh*p.HeadDim:], p.KStride, 0, s, nk)
			b.parallel(nq, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					row := s[i*nk : (i+1)*nk]
					if p.Causal && q0+i+1 < nk {
						clear(row[q0+i+1:]) // masked keys weigh exactly 0
						row = row[:q0+i+1]
					}
					invSums[i] = 1 / expShifted(row)
				}
			})
			vh := v[kvh*p.HeadDim:]
			if p.Causal && nq > 1 && !finiteRows(vh, q0+1, nk, p.VStride, p.HeadDim) {
				causalPV(o, s, vh, q0, nq, nk, p)
			} else {
				b.blas.Sgemm(false, false, nq, p.HeadDim, nk, 1, s, nk, vh, p.VStride, 0, o, p.OutStride)
			}
			for i := 0; i < nq; i++ {
				orow := o[i*p.OutStride : i*p.OutStride+p.HeadDim]
				inv := invSums[i]
				for j := range orow {
					orow[j] *= inv
				}
			}
		}
	}
}

// expShiftedGo is the portable expShifted: row = exp(row - max(row)), returning the sum.
func expShiftedGo(row []float32) float32 {
	m := float32(math.Inf(-1))
	for _, v := range row {
		if v > m {
			m = v
		}
	}
	var s float64 // as cheap as float32 in scalar code, and exact enough for long rows
	for i, v := range row {
		e := expf(v - m)
		row[i] = e
		s += float64(e)
	}
	return float32(s)
}

// finiteRows reports whether rows [lo, hi) of v (dim values each, stride apart) are finite:
// x·0 is 0 for a finite x and NaN for ±Inf and NaN, so the sum stays 0 only if all are (one
// multiply-add a value, no branch: it runs on every causal tile).
func finiteRows(v []float32, lo, hi, stride, dim int) bool {
	var acc float32
	for r := lo; r < hi; r++ {
		for _, x := range v[r*stride : r*stride+dim] {
			acc += x * 0
		}
	}
	return acc == 0
}

// causalPV computes O = P·V for a causal tile of nq queries from q0 whose V rows past the
// tile's first query hold a non-finite value: a matrix product would multiply such a row by
// the exact 0 weight of the queries that do not see it (0·NaN = NaN). Each query adds the
// keys it sees one by one instead, in plain Go: the slow path is taken only for such tiles.
func causalPV(o, s, v []float32, q0, nq, nk int, p gpu.AttnParams) {
	for i := 0; i < nq; i++ {
		orow := o[i*p.OutStride : i*p.OutStride+p.HeadDim]
		clear(orow)
		for j := 0; j <= q0+i && j < nk; j++ {
			w := s[i*nk+j]
			vrow := v[j*p.VStride : j*p.VStride+p.HeadDim]
			for d := range orow {
				orow[d] += w * vrow[d]
			}
		}
	}
}
