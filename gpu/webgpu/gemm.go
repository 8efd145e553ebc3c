//go:build cgo

package webgpu

import (
	"github.com/cogentcore/webgpu/wgpu"
)

// SetDispatchFLOPs bounds the floating-point operations of one Linear or Conv2D dispatch
// (larger products run as several dispatches over row or pixel ranges); n ≤ 0 restores the
// default, the device's bound (dispatch.go: its rate times DispatchSeconds, above a floor of
// workgroups), so that no dispatch runs long enough to trip a GPU watchdog. Tests set it to
// force splitting.
func (b *Backend) SetDispatchFLOPs(n float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dispatchFLOPs = n
}

// smallM is the tile used for products of at most 8 rows (Linear on one token, Conv2D to
// 3 channels), whatever the variant (its load width and K split kept): a 128-row tile would
// be over 90 % padding there.
var smallM = gemmCfg{tm: 8, tn: 256, rm: 1, rn: 8, kt: 8, vec: 4}

// gemmTile returns the tile for an M-row product under variant cfg.
func gemmTile(cfg gemmCfg, m int, lim wgpu.Limits) gemmCfg {
	if m <= smallM.tm && cfg.tm > smallM.tm && smallM.fits(lim) {
		s := smallM
		s.vec, s.sk = cfg.vec, cfg.sk
		return s
	}
	return cfg
}

// gemmBlock is a part of a product dispatched on its own: rows [m0, m1) and columns
// [n0, n1), interior when it has no partial tile (and K is a multiple of the K step).
type gemmBlock struct {
	m0, m1, n0, n1 int
	interior       bool
}

// gemmBlocks splits an m×n product of depth k into dispatches: ranges of whole row tiles
// (or, splitCols, column tiles) within bound d, and within each range the interior (no
// bounds checks) and its edges.
func gemmBlocks(cfg gemmCfg, m, n, k int, d dispatchBound, maxGroups int, splitCols bool) []gemmBlock {
	var out []gemmBlock
	add := func(m0, m1, n0, n1 int, interior bool) {
		if m1 > m0 && n1 > n0 {
			out = append(out, gemmBlock{m0, m1, n0, n1, interior})
		}
	}
	kAligned := k%cfg.kt == 0
	// the length of the split dimension per dispatch, in whole tiles
	span, tile, other, otherTile := m, cfg.tm, n, cfg.tn
	if splitCols {
		span, tile, other, otherTile = n, cfg.tn, m, cfg.tm
	}
	across := (other + otherTile - 1) / otherTile
	per := d.units(2*float64(max(other, 1))*float64(max(k, 1)), tile, across)
	per = min(per, maxGroups*tile)
	for lo := 0; lo < span; lo += per {
		hi := min(span, lo+per)
		m0, m1, n0, n1 := lo, hi, 0, n
		if splitCols {
			m0, m1, n0, n1 = 0, m, lo, hi
		}
		if !kAligned {
			add(m0, m1, n0, n1, false)
			continue
		}
		mi := m0 + (m1-m0)/cfg.tm*cfg.tm
		ni := n0 + (n1-n0)/cfg.tn*cfg.tn
		add(m0, mi, n0, ni, true)
		add(m0, mi, ni, n1, false)
		add(mi, m1, n0, n1, false)
	}
	return out
}

// rowVec returns the values per load of a K-contiguous operand of dtype bf16 (or f32) whose
// rows start at element off + r·k: the variant's vector where k and off allow it, else 1.
func rowVec(cfg gemmCfg, bf16 bool, k int, off uint32) int {
	if cfg.vec == 1 {
		return 1
	}
	v := 4
	if bf16 {
		v = 8
	}
	if k%v != 0 || off%uint32(v) != 0 {
		return 1
	}
	return v
}

// gemmKernel returns the kernel of key (its source generated when first compiled).
func gemmKernel(key gemmKey) (*kernel, string) {
	name := "linear"
	if key.conv {
		name = "conv"
	}
	return &kernel{name: name, gen: func() string { return gemmSource(key) }, nOut: 1, nIn: 3}, key.String()
}
