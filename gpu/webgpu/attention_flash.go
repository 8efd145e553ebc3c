//go:build cgo

package webgpu

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"
)

//go:embed attention_flash.wgsl
var attentionFlashWGSL string

// flashConfig is one variant of the flash kernel (attention_flash.wgsl): BQ queries by BK
// keys per tile, RQ×RK scores per thread, OR output rows per thread, head-dim chunk DC for
// streaming Q and K (0: Q stays in workgroup memory, loaded once), and whether V is staged in
// workgroup memory (else read from the buffer, for large head dims); x2 takes the softmax's
// powers of two from the built-in exp2 (WGSL: within 3 + 2|x| ulp, the hardware's fast
// path on GPUs) instead of the polynomial exp2f; pf fetches each tile into registers while
// the one before it is computed (attention_prefetch.go).
type flashConfig struct {
	bq, bk, rq, rk, or, dc int
	stageV                 bool
	x2                     bool
	pf                     bool
}

// wg is the workgroup size: one thread per RQ×RK block of the BQ×BK score tile.
func (f flashConfig) wg() int { return (f.bq / f.rq) * (f.bk / f.rk) }

// name encodes the parameters, e.g. "fa-q32-k32-r4x4-o4-wg64" (c32: head-dim chunk 32;
// vg: V read from the buffer; x2: the built-in exp2; pf: tiles prefetched).
func (f flashConfig) name(prefix string) string {
	s := fmt.Sprintf("%s-q%d-k%d-r%dx%d-o%d", prefix, f.bq, f.bk, f.rq, f.rk, f.or)
	if f.dc > 0 {
		s += fmt.Sprintf("-c%d", f.dc)
	}
	if !f.stageV {
		s += "-vg"
	}
	if f.x2 {
		s += "-x2"
	}
	if f.pf {
		s += "-pf"
	}
	return s + fmt.Sprintf("-wg%d", f.wg())
}

// chunk is the head-dim chunk for head dim d.
func (f flashConfig) chunk(d int) int {
	if f.dc == 0 || f.dc > d {
		return d
	}
	return f.dc
}

// sharedBytes is the workgroup memory the kernel needs at head dim d.
func (f flashConfig) sharedBytes(d int) int {
	dc := f.chunk(d)
	kvn := f.bk * (dc/4 + 1)
	if f.stageV {
		kvn = max(kvn, f.bk*(d/4+1))
	}
	pp, rp := f.pitches()
	return 16*(f.bq*(dc/4+1)+kvn) + 4*(f.bq*pp+f.bq*rp+f.bq)
}

// pitches are the row pitches (floats) of P and red: the TK threads of an S row group write
// TK consecutive floats, and the row groups of a 32-thread warp land TK banks apart.
func (f flashConfig) pitches() (pp, rp int) {
	tk := f.bk / f.rk
	pad := max(1, tk/f.rq)
	return f.bk + pad, tk + pad
}

// fits reports whether an adapter with limits lim can run the kernel up to head dim maxD.
func (f flashConfig) fits(maxD int) func(lim wgpu.Limits) bool {
	return func(lim wgpu.Limits) bool {
		wg := uint32(f.wg())
		return f.sharedBytes(maxD) <= int(lim.MaxComputeWorkgroupStorageSize) &&
			wg <= lim.MaxComputeInvocationsPerWorkgroup && wg <= lim.MaxComputeWorkgroupSizeX
	}
}

// flashSource writes the kernel for head dim d (a multiple of 4); vec4 binds the tensors as
// arrays of vec4 (every offset and stride a multiple of 4), else as floats; noMask leaves out
// the mask of the scores (a call without causal mask whose visible keys fill whole key
// tiles: every score of every tile is visible).
func (f flashConfig) flashSource(d int, vec4, noMask bool) string {
	dc := f.chunk(d)
	tk := f.bk / f.rk
	wg := f.wg()
	pp, rp := f.pitches()
	td := wg / (f.bq / f.or)
	d4 := d / 4
	nv := (d4 + td - 1) / td
	qrow, krow, vrow := dc/4+1, dc/4+1, d4+1
	kvn := f.bk * krow
	if f.stageV {
		kvn = max(kvn, f.bk*vrow)
	}
	unroll := 1 // head-dim vec4 steps per iteration of the S loop: about 32 dot products
	for _, u := range []int{8, 4, 3, 2} {
		if (dc/4)%u == 0 && f.rq*f.rk*u <= 32 {
			unroll = u
			break
		}
	}
	var consts strings.Builder
	for _, c := range []struct {
		n string
		v int
	}{{"D", d}, {"DC", dc}, {"BQ", f.bq}, {"BK", f.bk}, {"TK", tk}, {"TD", td}, {"WG", wg},
		{"QROW", qrow}, {"KROW", krow}, {"VROW", vrow}, {"KVN", kvn}, {"EU", unroll},
		{"QN", f.bq * qrow}, {"PN", f.bq * pp}, {"RN", f.bq * rp}, {"PP", pp}, {"RP", rp}} {
		fmt.Fprintf(&consts, "const %s = %du;\n", c.n, c.v)
	}
	elem, loaders := "f32", ""
	for _, t := range []string{"q", "k", "v"} {
		if vec4 {
			loaders += fmt.Sprintf("fn ld%s(i: u32) -> vec4<f32> { return %s[i >> 2u]; }\n", t, t)
		} else {
			loaders += fmt.Sprintf("fn ld%s(i: u32) -> vec4<f32> { return vec4<f32>(%s[i], %s[i + 1u], %s[i + 2u], %s[i + 3u]); }\n", t, t, t, t, t)
		}
	}
	if vec4 {
		elem = "vec4<f32>"
		loaders += "fn st(i: u32, x: vec4<f32>) { o[i >> 2u] = x; }\n"
	} else {
		loaders += "fn st(i: u32, x: vec4<f32>) { o[i] = x.x; o[i + 1u] = x.y; o[i + 2u] = x.z; o[i + 3u] = x.w; }\n"
	}
	g := flashGen{f: f, d4: d4, dc4: dc / 4, tk: tk, td: td, nv: nv, wg: wg, unroll: unroll, noMask: noMask}
	init, loadK, prefetch, loadV := g.init(), g.loadK(), "", g.loadV()
	if f.pf {
		init, loadK, prefetch, loadV = init+g.pfInit(), g.pfLoadK(), g.pfNext(), g.pfLoadV()
	}
	src := strings.NewReplacer(
		"//GEN:loaders//", loaders,
		"//GEN:init//", init,
		"//GEN:sinit//", g.sinit(),
		"//GEN:loadk//", loadK,
		"//GEN:prefetch//", prefetch,
		"//GEN:qk//", g.qk(),
		"//GEN:mask//", g.mask(),
		"//GEN:loadv//", loadV,
		"//GEN:softmax//", g.softmax(),
		"//GEN:rescale//", g.rescale(),
		"//GEN:pvmask//", g.pv(true),
		"//GEN:pv//", g.pv(false),
		"//GEN:store//", g.store(),
		"array<ELEM>", "array<"+elem+">",
	).Replace(attentionFlashWGSL)
	return consts.String() + src
}

// flashGen writes the unrolled statements of one flash kernel.
type flashGen struct {
	f                               flashConfig
	d4, dc4, tk, td, nv, wg, unroll int
	noMask                          bool
}

// tileLoad copies rows×cols4 vec4s into the workgroup array dst (row pitch pitch vec4s) from
// global vec4s at gexpr(row, col4) where valid(row) holds, else zeros; every thread takes
// every WG-th vec4.
func (g flashGen) tileLoad(b *strings.Builder, ind, dst string, rows, cols4, pitch int, valid, gaddr string) {
	total := rows * cols4
	for n := 0; n*g.wg < total; n++ {
		fmt.Fprintf(b, "%s{\n%s\tlet x = li + %du;\n", ind, ind, n*g.wg)
		in := ind + "\t"
		if (n+1)*g.wg > total {
			fmt.Fprintf(b, "%sif (x < %du) {\n", in, total)
			in += "\t"
		}
		fmt.Fprintf(b, "%slet r = x / %du;\n%slet c = x %% %du;\n", in, cols4, in, cols4)
		fmt.Fprintf(b, "%svar val = vec4<f32>(0.0);\n%sif (%s) { val = %s; }\n", in, in, valid, gaddr)
		fmt.Fprintf(b, "%s%s[r * %du + c] = val;\n", in, dst, pitch)
		if (n+1)*g.wg > total {
			fmt.Fprintf(b, "%s\t}\n", ind)
		}
		fmt.Fprintf(b, "%s}\n", ind)
	}
}

func (g flashGen) init() string {
	var b strings.Builder
	for a := range g.f.rq {
		fmt.Fprintf(&b, "\tvar m_%d = -3.0e38;\n", a)
	}
	for r := range g.f.or {
		fmt.Fprintf(&b, "\tvar l_%d = 0.0;\n", r)
		for c := range g.nv {
			fmt.Fprintf(&b, "\tvar o_%d_%d = vec4<f32>(0.0);\n", r, c)
		}
	}
	if g.dc4 == g.d4 { // Q stays in workgroup memory: load it once
		g.tileLoad(&b, "\t", "qsh", g.f.bq, g.d4, g.dc4+1, "i0 + r < p.seqQ", "ldq(qbase + (i0 + r) * p.qs + c * 4u)")
	}
	return b.String()
}

func (g flashGen) sinit() string {
	var b strings.Builder
	for a := range g.f.rq {
		for k := range g.f.rk {
			fmt.Fprintf(&b, "\t\tvar s_%d_%d = 0.0;\n", a, k)
		}
	}
	return b.String()
}

func (g flashGen) loadK() string {
	var b strings.Builder
	inHead := "" // the last chunk may end beyond the head: zeros there
	if g.d4%g.dc4 != 0 {
		inHead = " && c0 + c * 4u < D"
	}
	g.tileLoad(&b, "\t\t\t", "kvsh", g.f.bk, g.dc4, g.dc4+1, "j0 + r < nkw"+inHead, "ldk(kbase + (j0 + r) * p.ks + c0 + c * 4u)")
	if g.dc4 != g.d4 {
		g.tileLoad(&b, "\t\t\t", "qsh", g.f.bq, g.dc4, g.dc4+1, "i0 + r < p.seqQ"+inHead, "ldq(qbase + (i0 + r) * p.qs + c0 + c * 4u)")
	}
	return b.String()
}

func (g flashGen) qk() string {
	var b strings.Builder
	ind := "\t\t\t\t"
	for u := range g.unroll {
		for k := range g.f.rk {
			fmt.Fprintf(&b, "%slet k_%d_%d = kvsh[(sk + %du) * KROW + e + %du];\n", ind, u, k, k*g.tk, u)
		}
		for a := range g.f.rq {
			fmt.Fprintf(&b, "%slet q_%d_%d = qsh[(sq * %du + %du) * QROW + e + %du];\n", ind, u, a, g.f.rq, a, u)
		}
		for a := range g.f.rq {
			for k := range g.f.rk {
				fmt.Fprintf(&b, "%ss_%d_%d += dot(q_%d_%d, k_%d_%d);\n", ind, a, k, u, a, u, k)
			}
		}
	}
	return b.String()
}

func (g flashGen) mask() string {
	var b strings.Builder
	for a := range g.f.rq {
		fmt.Fprintf(&b, "\t\t{\n\t\t\tlet row = i0 + sq * %du + %du;\n\t\t\tvar mx = -1.0e30;\n", g.f.rq, a)
		for k := range g.f.rk {
			fmt.Fprintf(&b, "\t\t\t{\n\t\t\t\tlet key = j0 + sk + %du;\n", k*g.tk)
			if g.noMask {
				fmt.Fprintf(&b, "\t\t\t\ts_%d_%d = s_%d_%d * p.scale2;\n", a, k, a, k)
			} else {
				fmt.Fprintf(&b, "\t\t\t\ts_%d_%d = select(-1.0e30, s_%d_%d * p.scale2, key < nkw && (p.causal == 0u || key <= row));\n", a, k, a, k)
			}
			fmt.Fprintf(&b, "\t\t\t\tmx = max(mx, s_%d_%d);\n\t\t\t}\n", a, k)
		}
		fmt.Fprintf(&b, "\t\t\tred[(sq * %du + %du) * RP + sk] = mx;\n\t\t}\n", g.f.rq, a)
	}
	return b.String()
}

func (g flashGen) loadV() string {
	if !g.f.stageV {
		return ""
	}
	var b strings.Builder
	g.tileLoad(&b, "\t\t", "kvsh", g.f.bk, g.d4, g.d4+1, "j0 + r < nkw", "ldv(vbase + (j0 + r) * p.vs + c * 4u)")
	return b.String()
}

func (g flashGen) softmax() string {
	var b strings.Builder
	for a := range g.f.rq {
		fmt.Fprintf(&b, "\t\t{\n\t\t\tlet rr = sq * %du + %du;\n\t\t\tvar mn = m_%d;\n", g.f.rq, a, a)
		for t := range g.tk {
			fmt.Fprintf(&b, "\t\t\tmn = max(mn, red[rr * RP + %du]);\n", t)
		}
		fmt.Fprintf(&b, "\t\t\tif (sk == 0u) { corr[rr] = %s(m_%d - mn); }\n\t\t\tm_%d = mn;\n", g.exp2(), a, a)
		for k := range g.f.rk {
			fmt.Fprintf(&b, "\t\t\tpsh[rr * PP + sk + %du] = select(%s(s_%d_%d - mn), qnan(), badScore(s_%d_%d));\n", k*g.tk, g.exp2(), a, k, a, k)
		}
		b.WriteString("\t\t}\n")
	}
	return b.String()
}

// exp2 is the kernel's power of two: exp2f, or exp2b with the built-in (x2).
func (g flashGen) exp2() string {
	if g.f.x2 {
		return "exp2b"
	}
	return "exp2f"
}

func (g flashGen) rescale() string {
	var b strings.Builder
	for r := range g.f.or {
		fmt.Fprintf(&b, "\t\t{\n\t\t\tlet cr = corr[oq * %du + %du];\n\t\t\tl_%d = l_%d * cr;\n", g.f.or, r, r, r)
		for c := range g.nv {
			fmt.Fprintf(&b, "\t\t\to_%d_%d = o_%d_%d * cr;\n", r, c, r, c)
		}
		b.WriteString("\t\t}\n")
	}
	return b.String()
}

// col is the vec4 column c of this thread's output (clamped to the head dim when the
// threads of a row outnumber its vec4s; such columns are never stored).
func (g flashGen) col(c int) string {
	if g.td*g.nv == g.d4 {
		return fmt.Sprintf("(od + %du)", c*g.td)
	}
	return fmt.Sprintf("min(od + %du, %du)", c*g.td, g.d4-1)
}

// pv adds P·V over four keys of the tile; causal leaves out the values of keys after each
// row's query (their weight is 0, and 0·NaN would spread a NaN they hold).
func (g flashGen) pv(causal bool) string {
	var b strings.Builder
	for u := range 4 {
		fmt.Fprintf(&b, "\t\t\t\t{\n\t\t\t\t\tlet kk = jj + %du;\n", u)
		for c := range g.nv {
			if g.f.stageV {
				fmt.Fprintf(&b, "\t\t\t\t\tlet v_%d = kvsh[kk * VROW + %s];\n", c, g.col(c))
			} else {
				fmt.Fprintf(&b, "\t\t\t\t\tvar v_%d = vec4<f32>(0.0);\n\t\t\t\t\tif (j0 + kk < nkw) { v_%d = ldv(vbase + (j0 + kk) * p.vs + %s * 4u); }\n", c, c, g.col(c))
			}
		}
		for r := range g.f.or {
			fmt.Fprintf(&b, "\t\t\t\t\t{\n\t\t\t\t\t\tlet pr = psh[(oq * %du + %du) * PP + kk];\n\t\t\t\t\t\tl_%d += pr;\n", g.f.or, r, r)
			if causal {
				fmt.Fprintf(&b, "\t\t\t\t\t\tlet vis = j0 + kk <= i0 + oq * %du + %du;\n", g.f.or, r)
			}
			for c := range g.nv {
				if causal {
					fmt.Fprintf(&b, "\t\t\t\t\t\to_%d_%d += select(vec4<f32>(0.0), pr * v_%d, vis);\n", r, c, c)
				} else {
					fmt.Fprintf(&b, "\t\t\t\t\t\to_%d_%d += pr * v_%d;\n", r, c, c)
				}
			}
			b.WriteString("\t\t\t\t\t}\n")
		}
		b.WriteString("\t\t\t\t}\n")
	}
	return b.String()
}

func (g flashGen) store() string {
	var b strings.Builder
	for r := range g.f.or {
		fmt.Fprintf(&b, "\t{\n\t\tlet row = i0 + oq * %du + %du;\n\t\tif (row < p.seqQ) {\n", g.f.or, r)
		fmt.Fprintf(&b, "\t\t\tlet inv = select(0.0, 1.0 / l_%d, l_%d > 0.0);\n\t\t\tlet bad = nonfinite(l_%d);\n", r, r, r)
		for c := range g.nv {
			guard := ""
			if g.td*g.nv != g.d4 {
				guard = fmt.Sprintf("if (od + %du < %du) ", c*g.td, g.d4)
			}
			fmt.Fprintf(&b, "\t\t\t%s{ st(p.ob + row * p.os + h * D + (od + %du) * 4u, select(o_%d_%d * inv, vec4<f32>(qnan()), bad)); }\n", guard, c*g.td, r, c)
		}
		b.WriteString("\t\t}\n\t}\n")
	}
	return b.String()
}
