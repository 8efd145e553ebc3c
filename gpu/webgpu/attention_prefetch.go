//go:build cgo

package webgpu

import (
	"fmt"
	"strings"
)

// Prefetching flash variants (flashConfig.pf): every tile that goes through workgroup memory
// (K and, when Q streams, Q in head-dim chunks; V when staged) is fetched from the buffers
// into registers one step ahead, while the step before it computes from workgroup memory,
// and stored after the barrier that frees its array, as the tile products do
// (gemm_wgsl.go). Per key tile j0, chunk c0:
//
//   - after the K (and Q) chunk of (j0, c0) is stored and the barrier passed, the next chunk
//     of the tile is fetched, or after its last chunk the tile's V, during Q·Kᵀ;
//   - V is stored where it was loaded (after the scores' barrier), and the first chunk of
//     the next tile is fetched during the softmax and P·V.
//
// The barriers, the workgroup arrays and the order of every sum stay as in the plain kernel;
// only where the global loads are issued moves. A tile load is the same element mapping as
// flashGen.tileLoad: element x = li + n·WG of a rows×cols4 tile of vec4s, row x / cols4.

// pfLoad is one tile load split into a fetch (into registers reg_0, reg_1, …) and a store.
type pfLoad struct {
	reg, dst           string
	rows, cols4, pitch int
	// valid and addr give the element's condition and load for tile origin j (keys) and
	// head-dim offset c (WGSL expressions); r and c are the element's row and vec4 column.
	valid, addr func(j, c string) string
}

// pfLoads are the kernel's tile loads: K and Q chunks (kq; Q only when it streams) and V
// (when staged).
func (g flashGen) pfLoads() (kq []pfLoad, v *pfLoad) {
	inHead := func(c string) string { // the last chunk may end beyond the head: zeros there
		if g.d4%g.dc4 != 0 {
			return fmt.Sprintf(" && %s + c * 4u < D", c)
		}
		return ""
	}
	kq = append(kq, pfLoad{reg: "pk", dst: "kvsh", rows: g.f.bk, cols4: g.dc4, pitch: g.dc4 + 1,
		valid: func(j, c string) string { return fmt.Sprintf("%s + r < nkw%s", j, inHead(c)) },
		addr:  func(j, c string) string { return fmt.Sprintf("ldk(kbase + (%s + r) * p.ks + %s + c * 4u)", j, c) }})
	if g.dc4 != g.d4 {
		kq = append(kq, pfLoad{reg: "pq", dst: "qsh", rows: g.f.bq, cols4: g.dc4, pitch: g.dc4 + 1,
			valid: func(_, c string) string { return "i0 + r < p.seqQ" + inHead(c) },
			addr:  func(_, c string) string { return fmt.Sprintf("ldq(qbase + (i0 + r) * p.qs + %s + c * 4u)", c) }})
	}
	if g.f.stageV {
		v = &pfLoad{reg: "pv", dst: "kvsh", rows: g.f.bk, cols4: g.d4, pitch: g.d4 + 1,
			valid: func(j, _ string) string { return j + " + r < nkw" },
			addr:  func(j, _ string) string { return fmt.Sprintf("ldv(vbase + (%s + r) * p.vs + c * 4u)", j) }}
	}
	return kq, v
}

// regs is the number of vec4 registers of l per thread.
func (g flashGen) regs(l pfLoad) int { return (l.rows*l.cols4 + g.wg - 1) / g.wg }

func (g flashGen) pfDecl(b *strings.Builder, l pfLoad) {
	for n := range g.regs(l) {
		fmt.Fprintf(b, "\tvar %s_%d = vec4<f32>(0.0);\n", l.reg, n)
	}
}

// pfFetch loads l's tile at (j, c) into its registers (zeros where invalid).
func (g flashGen) pfFetch(b *strings.Builder, ind string, l pfLoad, j, c string) {
	total := l.rows * l.cols4
	for n := range g.regs(l) {
		fmt.Fprintf(b, "%s{\n%s\tlet x = li + %du;\n", ind, ind, n*g.wg)
		in := ind + "\t"
		fmt.Fprintf(b, "%slet r = x / %du;\n%slet c = x %% %du;\n", in, l.cols4, in, l.cols4)
		cond := l.valid(j, c)
		if (n+1)*g.wg > total {
			cond = fmt.Sprintf("x < %du && %s", total, cond)
		}
		fmt.Fprintf(b, "%s%s_%d = vec4<f32>(0.0);\n%sif (%s) { %s_%d = %s; }\n", in, l.reg, n, in, cond, l.reg, n, l.addr(j, c))
		fmt.Fprintf(b, "%s}\n", ind)
	}
}

// pfStore writes l's registers into its workgroup array.
func (g flashGen) pfStore(b *strings.Builder, ind string, l pfLoad) {
	total := l.rows * l.cols4
	for n := range g.regs(l) {
		fmt.Fprintf(b, "%s{\n%s\tlet x = li + %du;\n", ind, ind, n*g.wg)
		in := ind + "\t"
		if (n+1)*g.wg > total {
			fmt.Fprintf(b, "%sif (x < %du) {\n", in, total)
			in += "\t"
		}
		fmt.Fprintf(b, "%s%s[(x / %du) * %du + x %% %du] = %s_%d;\n", in, l.dst, l.cols4, l.pitch, l.cols4, l.reg, n)
		if (n+1)*g.wg > total {
			fmt.Fprintf(b, "%s\t}\n", ind)
		}
		fmt.Fprintf(b, "%s}\n", ind)
	}
}

// pfInit declares the registers and fetches the first chunk of the first key tile.
func (g flashGen) pfInit() string {
	var b strings.Builder
	kq, v := g.pfLoads()
	for _, l := range kq {
		g.pfDecl(&b, l)
		g.pfFetch(&b, "\t", l, "0u", "0u")
	}
	if v != nil {
		g.pfDecl(&b, *v)
	}
	return b.String()
}

// pfLoadK stores the fetched chunk (j0, c0) of K (and Q).
func (g flashGen) pfLoadK() string {
	var b strings.Builder
	kq, _ := g.pfLoads()
	for _, l := range kq {
		g.pfStore(&b, "\t\t\t", l)
	}
	return b.String()
}

// pfNext fetches, during Q·Kᵀ of chunk c0, the tile's next chunk or else its V.
func (g flashGen) pfNext() string {
	var b strings.Builder
	kq, v := g.pfLoads()
	ind := "\t\t\t"
	if g.dc4 != g.d4 {
		b.WriteString("\t\t\tif (c0 + DC < D) {\n")
		for _, l := range kq {
			g.pfFetch(&b, "\t\t\t\t", l, "j0", "(c0 + DC)")
		}
		b.WriteString("\t\t\t} else {\n")
		ind = "\t\t\t\t"
	}
	if v != nil {
		g.pfFetch(&b, ind, *v, "j0", "0u")
	}
	if g.dc4 != g.d4 {
		b.WriteString("\t\t\t}\n")
	}
	return b.String()
}

// pfLoadV stores V (when staged) and fetches the first chunk of the next key tile.
func (g flashGen) pfLoadV() string {
	var b strings.Builder
	kq, v := g.pfLoads()
	if v != nil {
		g.pfStore(&b, "\t\t", *v)
	}
	b.WriteString("\t\tif (j0 + BK < nkw) {\n")
	for _, l := range kq {
		g.pfFetch(&b, "\t\t\t", l, "(j0 + BK)", "0u")
	}
	b.WriteString("\t\t}\n")
	return b.String()
}
