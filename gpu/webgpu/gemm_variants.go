//go:build cgo

package webgpu

import (
	"fmt"
	"strings"
)

// The options of the generated tile product beyond its tile (gemmCfg): vec4 output stores
// (o4), warp tiles (wy×wx), double-buffered workgroup memory (db) and split K (sk). Each is
// built on the s4 layout, where a thread's outputs are 4×4 blocks of 4 adjacent columns.
//
//   - o4: a thread stores its 4 adjacent outputs of a row as one vec4 (Y bound as
//     array<vec4<f32>>), in the forms whose columns, row stride and first output are
//     multiples of 4 (the dispatcher picks the scalar form elsewhere).
//   - wy×wx: the workgroup's 32-thread warps each own a (tm/wy)×(tn/wx) warp tile, their
//     lanes a grid of (tm/wy/rm)×(tn/wx/rn) within it, so that one warp's reads of
//     workgroup memory touch few distinct rows and columns (and its outputs one compact
//     block); the 4×4 blocks of a lane are spread over the warp tile.
//   - db: two halves of workgroup memory, alternating by K step: a step stores the next
//     tile into one half while slower threads may still read the other, so a K step needs
//     one barrier instead of two.
//   - sk: K is cut into up to sk slices (linearSplit, gemm_splitk.go), one per workgroup z;
//     each writes its partial products to a buffer of its own and a second pass sums them
//     in slice order (plus bias): more workgroups for products of few row tiles and a deep
//     K (768×9216→3072: 144 tiles of 128×128 on a GPU of 132 SMs).

// optionsName is the name suffix of c's options ("" for none).
func (c gemmCfg) optionsName() string {
	var n string
	if c.o4 {
		n += "-o4"
	}
	if c.db {
		n += "-db"
	}
	if c.wy > 0 {
		n += fmt.Sprintf("-w%dx%d", c.wy, c.wx)
	}
	if c.sk > 0 {
		n += fmt.Sprintf("-sk%d", c.sk)
	}
	return n
}

// parseOption sets the option a name part encodes ("s4", "o4", "db", "w2x2", "sk4").
func (c *gemmCfg) parseOption(o string) bool {
	switch {
	case o == "s4":
		c.s4 = true
	case o == "o4":
		c.o4 = true
	case o == "db":
		c.db = true
	case strings.HasPrefix(o, "w"):
		if _, err := fmt.Sscanf(o, "w%dx%d", &c.wy, &c.wx); err != nil {
			return false
		}
	case strings.HasPrefix(o, "sk"):
		if _, err := fmt.Sscanf(o, "sk%d", &c.sk); err != nil {
			return false
		}
	default:
		return false
	}
	return true
}

// optionsValid reports whether the generator supports c's options: o4 and warps need the
// s4 layout; warps tile the workgroup in 32-thread grids; sk is 2..16 or none.
func (c gemmCfg) optionsValid() bool {
	if (c.o4 || c.wy != 0 || c.wx != 0) && !c.s4 {
		return false
	}
	if c.sk != 0 && (c.sk < 2 || c.sk > 16) {
		return false
	}
	if c.wy == 0 && c.wx == 0 {
		return true
	}
	// wy·wx warps of 32 threads, each tile whole thread rows and columns: the lanes of a
	// warp tile, (tm/wy/rm)·(tn/wx/rn) = wg/(wy·wx), are then 32
	return c.wy > 0 && c.wx > 0 && c.wy*c.wx*32 == c.wg() && c.tm%(c.wy*c.rm) == 0 && c.tn%(c.wx*c.rn) == 0
}

// rowStride and colStride are, in 4-row (4-column) units, the distance between a thread's
// successive 4×4 blocks (s4): the thread grid's height (width), or within a warp tile its
// lanes' grid.
func (c gemmCfg) rowStride() int {
	if c.wy > 0 {
		return c.tm / c.wy / c.rm
	}
	return c.ty()
}

func (c gemmCfg) colStride() int {
	if c.wx > 0 {
		return c.tn / c.wx / c.rn
	}
	return c.tx()
}

// threadIndex generates tx and ty, the thread's column and row in the thread grid (with s4
// in 4-column and 4-row units): row-major, or by warp tile and lane.
func threadIndex(s *strings.Builder, c gemmCfg) {
	if c.wy == 0 {
		fmt.Fprintf(s, "\tlet tx = li %% %du;\n\tlet ty = li / %du;\n", c.tx(), c.tx())
		return
	}
	lx := c.colStride()
	fmt.Fprintf(s, "\tlet warp = li / 32u;\n\tlet lane = li %% 32u;\n")
	fmt.Fprintf(s, "\tlet tx = (warp %% %du) * %du + lane %% %du;\n", c.wx, c.tn/c.wx/4, lx)
	fmt.Fprintf(s, "\tlet ty = (warp / %du) * %du + lane / %du;\n", c.wx, c.tm/c.wy/4, lx)
}

// sharedOff is the offset of this K step's half of workgroup array arr (double-buffered
// only) in units of unit values, as a prefix of an index ("" without db).
func sharedOff(c gemmCfg, arr string, unit int) string {
	if !c.db {
		return ""
	}
	if unit == 4 {
		return "(" + arr + "o >> 2u) + "
	}
	return arr + "o + "
}

// outBase is the index in Y of the form's output (0, 0): a split form's slice writes its
// own partial sums, p.zs values after the previous slice's.
func outBase(k gemmKey) string {
	if k.split {
		return "(p.yb + wg.z * p.zs)"
	}
	return "p.yb"
}

// gemmHeader is the uniform block and the output and bias bindings of form k: Y as vec4s
// for vec4 stores, and a split form's slice length ks and partial-sum stride zs.
func gemmHeader(k gemmKey) string {
	h := gemmParams
	if k.split {
		h = strings.Replace(h, "outW: u32 }", "outW: u32, ks: u32, zs: u32 }", 1)
	}
	if k.yVec == 4 {
		h = strings.Replace(h, "var<storage, read_write> Y: array<f32>;", "var<storage, read_write> Y: array<vec4<f32>>;", 1)
	}
	return h
}

// epilogueVec4 writes the outputs as epilogue does, 4 adjacent columns of a row a vec4 at a
// time (Linear: bias per column). The edge check of the first column covers all 4: the
// dispatcher uses this form only where the columns p.n, the row stride p.ys and the first
// output are multiples of 4.
func epilogueVec4(s *strings.Builder, k gemmKey) {
	c := k.cfg
	for i := range c.rm {
		fmt.Fprintf(s, "\t{\n\t\tlet row = m0 + %s;\n", outRow(c, i))
		if !k.interior {
			s.WriteString("\t\tif (row < p.m) {\n")
		}
		for q := range c.rn / 4 {
			fmt.Fprintf(s, "\t\t{\n\t\t\tlet col = n0 + %s;\n", outCol(c, 4*q))
			cond := "true"
			if !k.interior {
				cond = "col < p.n"
			}
			fmt.Fprintf(s, "\t\t\tif (%s) {\n\t\t\t\tvar o = acc%d_%d;\n", cond, i, q)
			fmt.Fprintf(s, "\t\t\t\tlet yi = (%s + row * p.ys + col) >> 2u;\n", outBase(k))
			s.WriteString("\t\t\t\tif (p.hasC == 1u) { let cb = p.cb + col; o = o + vec4<f32>(C[cb], C[cb + 1u], C[cb + 2u], C[cb + 3u]); }\n")
			// LinearAdd: y + s·o, the scale's bits in cb
			s.WriteString("\t\t\t\tif (p.hasC == 2u) { o = Y[yi] + bitcast<f32>(p.cb) * o; }\n\t\t\t\tY[yi] = o;\n\t\t\t}\n\t\t}\n")
		}
		if !k.interior {
			s.WriteString("\t\t}\n")
		}
		s.WriteString("\t}\n")
	}
}
