//go:build cgo

package webgpu

import (
	"fmt"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"

	"kleinbild/gpu"
)

// The tiled matrix product that Linear and Conv2D share, written once and generated per
// variant: C[m, n] = Σ_k A[m, k]·B[n, k] (+ bias) for an M×N output in tiles of tm×tn per
// workgroup, each thread holding rm×rn outputs, k in steps of kt through workgroup memory.
//
//   - Operands are read along K: an operand whose rows are K-contiguous (Linear's x and w,
//     Conv2D's w) is read vec4 at a time (f32, 4 values) or vec4<u32> at a time (bf16, 8
//     values, widened with a shift and a mask), or one value at a time where K or the
//     offset is not a multiple of the vector (the fallback). Conv2D's other operand is its
//     image, gathered as im2col on the fly by walking (channel, ky, kx) incrementally: no
//     division per element.
//   - Tiles are stored transposed, [kt][rows + pad], the pad chosen so that the transposing
//     stores of one 32-thread group hit 32 different banks (at most 2 per bank with s4 and
//     kt 16, whose pads are whole vec4s); the reads (thread (tx, ty) reads
//     rows ty + i·(tm/rm) and columns tx + j·(tn/rn), or with s4 4×4 blocks a vec4 at a
//     time) are conflict-free broadcasts.
//   - The next tile is fetched into registers while the current one is multiplied.
//   - An interior form (the whole dispatch inside M, N and a K that is a multiple of kt)
//     has no bounds checks; the dispatcher splits a product into interior and edge parts.
//
// Every output is summed in k order in float32, as the reference kernel does.

// gemmCfg is one variant's tile: tm×tn outputs per workgroup, rm×rn per thread, kt per step;
// vec is the preferred load width along K (4, or 1 for scalar loads). With s4 a thread's
// outputs are 4×4 blocks and it reads the tiles from workgroup memory a vec4 at a time
// (4 reads per 16 products instead of 8). The options that build on s4 (gemm_variants.go):
// o4 stores the outputs a vec4 at a time, wy×wx > 0 arranges the threads in 32-thread warp
// tiles, db double-buffers workgroup memory, and sk > 1 splits K into up to sk slices summed
// by a reduction pass (Linear only).
type gemmCfg struct {
	tm, tn, rm, rn, kt, vec int
	s4                      bool
	o4, db                  bool
	wy, wx                  int // warp grid (0: threads in row-major order)
	sk                      int // most K slices (0: no split)
}

func (c gemmCfg) tx() int { return c.tn / c.rn }
func (c gemmCfg) ty() int { return c.tm / c.rm }
func (c gemmCfg) wg() int { return c.tx() * c.ty() }

// name encodes the parameters, e.g. "t128x64-r8x4-k16-v4-wg256" ("-s4", then the options
// of gemm_variants.go appended: "-o4", "-db", "-w2x2", "-sk4").
func (c gemmCfg) name() string {
	n := fmt.Sprintf("t%dx%d-r%dx%d-k%d-v%d-wg%d", c.tm, c.tn, c.rm, c.rn, c.kt, c.vec, c.wg())
	if c.s4 {
		n += "-s4"
	}
	return n + c.optionsName()
}

// parseGemm reads a name written by gemmCfg.name.
func parseGemm(name string) (gemmCfg, bool) {
	var c gemmCfg
	var wg int
	parts := strings.Split(name, "-")
	if len(parts) < 5 {
		return gemmCfg{}, false
	}
	if _, err := fmt.Sscanf(strings.Join(parts[:5], "-"), "t%dx%d-r%dx%d-k%d-v%d-wg%d", &c.tm, &c.tn, &c.rm, &c.rn, &c.kt, &c.vec, &wg); err != nil {
		return gemmCfg{}, false
	}
	for _, o := range parts[5:] {
		if !c.parseOption(o) {
			return gemmCfg{}, false
		}
	}
	if c.name() != name || !c.valid() {
		return gemmCfg{}, false
	}
	return c, true
}

// valid reports whether the generator supports c: whole thread grids, rn a multiple of 4
// (vec4 accumulators), kt a multiple of 8 (a bf16 vector) and of the gather's k stride.
func (c gemmCfg) valid() bool {
	if c.tm <= 0 || c.tn <= 0 || c.rm <= 0 || c.rn <= 0 || c.kt <= 0 || c.tm%c.rm != 0 || c.tn%c.rn != 0 ||
		c.rn%4 != 0 || c.kt%8 != 0 || (c.vec != 1 && c.vec != 4) || (c.s4 && c.rm%4 != 0) {
		return false
	}
	wg := c.wg()
	return wg >= 32 && wg%c.tn == 0 && c.kt%(wg/c.tn) == 0 && c.optionsValid()
}

// smem is the bytes of workgroup memory c uses in its largest form (the widest pads).
func (c gemmCfg) smem() int {
	padA, padB := 0, 0
	for _, v := range []int{1, 4, 8} {
		padA = max(padA, bankPad(c.tm, c.kt, v, c.s4))
		padB = max(padB, bankPad(c.tn, c.kt, v, c.s4))
	}
	n := 4 * c.kt * (c.tm + padA + c.tn + padB)
	if c.db {
		n *= 2
	}
	return n
}

// fits reports whether an adapter with limits lim can run c.
func (c gemmCfg) fits(lim wgpu.Limits) bool {
	wg := uint32(c.wg())
	return wg <= lim.MaxComputeInvocationsPerWorkgroup && wg <= lim.MaxComputeWorkgroupSizeX &&
		uint32(c.smem()) <= lim.MaxComputeWorkgroupStorageSize
}

// spec is c as a variant of its family.
func (c gemmCfg) spec() variantSpec { return variantSpec{name: c.name(), fits: c.fits, gemm: &c} }

// operand kinds of the generated kernel
const (
	opF32    = iota // K-contiguous rows of float32
	opBF16          // K-contiguous rows of bf16, two per 32-bit word
	opGather        // Conv2D's image, gathered as im2col
	opQuant         // K-contiguous rows of ggml blocks, dequantized as loaded (gemm_quant_wgsl.go)
)

// gemmKey is one compiled form of a variant: its tile, the kinds and load widths of the A
// (rows) and B (columns) operands, whether A is the image binding's operand (Linear: A is x
// at binding 2, B the weight at binding 3; Conv2D: A is the weight, B the gathered image),
// the bias per row (Conv2D) or per column (Linear), and whether it is the interior form.
type gemmKey struct {
	cfg          gemmCfg
	aKind, bKind int
	aVec, bVec   int       // values per load: 1, 4 (f32, quant) or 8 (bf16)
	bQuant       gpu.DType // B's block type when bKind is opQuant
	conv         bool
	interior     bool
	yVec         int  // values per output store: 4 (vec4 stores, o4) or 1
	split        bool // one K slice per workgroup z, partial sums to the split buffer
}

func (k gemmKey) String() string {
	kind := [...]string{"f32", "bf16", "gather", "q"}
	s := fmt.Sprintf("%s/a%s%d/b%s%d", k.cfg.name(), kind[k.aKind], k.aVec, kind[k.bKind], k.bVec)
	if k.bKind == opQuant {
		s += "/" + k.bQuant.String()
	}
	if k.conv {
		s += "/conv"
	}
	if k.interior {
		s += "/interior"
	}
	if k.yVec == 4 {
		s += "/y4"
	}
	if k.split {
		s += "/split"
	}
	return s
}

// gemmParams is the uniform block of every generated kernel (P in WGSL). Linear uses the
// first nine fields.
const gemmParams = `struct P { m: u32, n: u32, k: u32, ab: u32, bb: u32, yb: u32, cb: u32, hasC: u32, ys: u32,
	pix0: u32, inC: u32, inH: u32, inW: u32, kh: u32, kw: u32, stride: u32, padT: u32, padL: u32, outW: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@group(0) @binding(4) var<storage, read> C: array<f32>;
`

// bankPad returns the pad (0..16 elements) of a [kt][rows + pad] workgroup array that gives
// the fewest bank conflicts (32 banks of 4 bytes) for the transposing stores of 32
// consecutive threads, each storing vec values of one row along k; with s4 a multiple of 4
// (rows of vec4).
func bankPad(rows, kt, vec int, s4 bool) int {
	per := kt / vec // loads per row of the tile
	best, bestPad := 1<<30, 0
	step := 1
	if s4 {
		step = 4
	}
	for pad := 0; pad <= 16; pad += step {
		stride := rows + pad
		worst := 0
		for j := range vec {
			var hits [32]int
			for t := range 32 {
				kv, r := (t%per)*vec, t/per
				b := ((kv+j)*stride + r) % 32
				hits[b]++
				worst = max(worst, hits[b])
			}
		}
		if worst < best {
			best, bestPad = worst, pad
		}
	}
	return bestPad
}

// gemmSource generates the WGSL of k.
func gemmSource(k gemmKey) string {
	c := k.cfg
	var s strings.Builder
	s.WriteString(gemmHeader(k))
	w := func(format string, a ...any) { fmt.Fprintf(&s, format, a...) }
	padA := bankPad(c.tm, c.kt, max(k.aVec, 1), c.s4)
	padB := bankPad(c.tn, c.kt, max(k.bVec, 1), c.s4)
	if k.bKind == opGather {
		padB = 0 // stored along the tile's rows: conflict-free as is
	}
	sa, sb := c.tm+padA, c.tn+padB
	bufs := 1
	if c.db {
		bufs = 2
	}
	if c.s4 {
		w("var<workgroup> As: array<vec4<f32>, %d>;\nvar<workgroup> Bs: array<vec4<f32>, %d>;\n", bufs*c.kt*sa/4, bufs*c.kt*sb/4)
	} else {
		w("var<workgroup> As: array<f32, %d>;\nvar<workgroup> Bs: array<f32, %d>;\n", bufs*c.kt*sa, bufs*c.kt*sb)
	}
	aArr, bArr := "W", "X"
	if !k.conv {
		aArr, bArr = "X", "W"
	}
	w("%s\n%s\n", bindingDecl(aArr, k.aKind, k.aVec), operandDecl(k, bArr))
	kLen, aBase, bBase := "p.k", "p.ab", "p.bb"
	if k.split {
		kLen, aBase, bBase = "kn", "(p.ab + kb)", "(p.bb + kb)"
	}
	a := rowLoader{id: "a", arr: aArr, kind: k.aKind, vec: k.aVec, rows: c.tm, stride: sa, shared: "As",
		origin: "m0", bound: "p.m", base: aBase, kLen: kLen, cfg: c, interior: k.interior}
	var bl loader
	if k.bKind == opGather {
		bl = gatherLoader{arr: bArr, stride: sb, cfg: c, interior: k.interior}
	} else {
		bl = rowLoader{id: "b", arr: bArr, kind: k.bKind, vec: k.bVec, rows: c.tn, stride: sb, shared: "Bs",
			origin: "n0", bound: "p.n", base: bBase, kLen: kLen, cfg: c, interior: k.interior}
	}
	w("\n@compute @workgroup_size(%d)\n", c.wg())
	w("fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {\n")
	w("\tlet m0 = wg.y * %du;\n\tlet n0 = wg.x * %du;\n", c.tm, c.tn)
	threadIndex(&s, c)
	if k.split {
		s.WriteString("\tlet kb = wg.z * p.ks;\n\tlet kn = min(p.k - kb, p.ks);\n")
	}
	a.init(&s)
	bl.init(&s)
	for i := range c.rm {
		for q := range c.rn / 4 {
			w("\tvar acc%d_%d = vec4<f32>(0.0);\n", i, q)
		}
	}
	w("\tlet nt = (%s + %du) / %du;\n", kLen, c.kt-1, c.kt)
	a.fetch(&s, "0u")
	bl.fetch(&s, "0u")
	w("\tfor (var t = 0u; t < nt; t++) {\n")
	if c.db {
		// this step's half of the double buffer (elements)
		w("\t\tlet Aso = (t & 1u) * %du;\n\t\tlet Bso = (t & 1u) * %du;\n", c.kt*sa, c.kt*sb)
	}
	a.store(&s)
	bl.store(&s)
	w("\t\tworkgroupBarrier();\n\t\tif (t + 1u < nt) {\n\t\t\tlet k0 = (t + 1u) * %du;\n", c.kt)
	a.fetch(&s, "k0")
	bl.fetch(&s, "k0")
	w("\t\t}\n\t\tfor (var kk = 0u; kk < %du; kk++) {\n", c.kt)
	multiply(&s, c, sa, sb)
	if c.db {
		// the next step stores into the other half; the barrier after that store orders
		// this half's reads before the step after it overwrites them
		s.WriteString("\t\t}\n\t}\n")
	} else {
		s.WriteString("\t\t}\n\t\tworkgroupBarrier();\n\t}\n")
	}
	if k.yVec == 4 {
		epilogueVec4(&s, k)
	} else {
		epilogue(&s, k)
	}
	w("}\n")
	return s.String()
}

// multiply generates one k step of the product: each thread reads its rm values of A and
// rn of B from workgroup memory and adds their products to its accumulators.
func multiply(s *strings.Builder, c gemmCfg, sa, sb int) {
	if c.s4 {
		lanes := [4]string{"x", "y", "z", "w"}
		for g := range c.rm / 4 {
			fmt.Fprintf(s, "\t\t\tlet a%d = As[%skk * %du + ty + %du];\n", g, sharedOff(c, "As", 4), sa/4, g*c.rowStride())
		}
		for q := range c.rn / 4 {
			fmt.Fprintf(s, "\t\t\tlet b%d = Bs[%skk * %du + tx + %du];\n", q, sharedOff(c, "Bs", 4), sb/4, q*c.colStride())
		}
		for i := range c.rm {
			for q := range c.rn / 4 {
				fmt.Fprintf(s, "\t\t\tacc%d_%d += a%d.%s * b%d;\n", i, q, i/4, lanes[i%4], q)
			}
		}
		return
	}
	for i := range c.rm {
		fmt.Fprintf(s, "\t\t\tlet a%d = As[%skk * %du + ty + %du];\n", i, sharedOff(c, "As", 1), sa, i*c.ty())
	}
	for q := range c.rn / 4 {
		var e []string
		for l := range 4 {
			e = append(e, fmt.Sprintf("Bs[%skk * %du + tx + %du]", sharedOff(c, "Bs", 1), sb, (4*q+l)*c.tx()))
		}
		fmt.Fprintf(s, "\t\t\tlet b%d = vec4<f32>(%s);\n", q, strings.Join(e, ", "))
	}
	for i := range c.rm {
		for q := range c.rn / 4 {
			fmt.Fprintf(s, "\t\t\tacc%d_%d += a%d * b%d;\n", i, q, i, q)
		}
	}
}

// outRow and outCol are the tile row of a thread's output row i and the tile column of its
// output column j: rows ty + i·(tm/rm) and columns tx + j·(tn/rn), or with s4 4×4 blocks
// (4·ty + i%4 + (i/4)·tm/(rm/4) and likewise for columns).
func outRow(c gemmCfg, i int) string {
	if c.s4 {
		return fmt.Sprintf("ty * 4u + %du", i%4+(i/4)*4*c.rowStride())
	}
	return fmt.Sprintf("ty + %du", i*c.ty())
}

func outCol(c gemmCfg, j int) string {
	if c.s4 {
		return fmt.Sprintf("tx * 4u + %du", j%4+(j/4)*4*c.colStride())
	}
	return fmt.Sprintf("tx + %du", j*c.tx())
}

// sharedStore is the WGSL statement arr[idx] = val for a workgroup tile (of vec4 with s4).
func sharedStore(c gemmCfg, arr, idx, val string) string {
	if c.db {
		idx = arr + "o + " + idx
	}
	if c.s4 {
		return fmt.Sprintf("\t{ let si = %s; %s[si >> 2u][si & 3u] = %s; }\n", idx, arr, val)
	}
	return fmt.Sprintf("\t%s[%s] = %s;\n", arr, idx, val)
}

// epilogue writes the outputs (plus the bias of their column, or with conv of their row).
func epilogue(s *strings.Builder, k gemmKey) {
	c := k.cfg
	lanes := [4]string{"x", "y", "z", "w"}
	bias := "C[p.cb + col]"
	if k.conv {
		bias = "C[p.cb + row]"
	}
	for i := range c.rm {
		fmt.Fprintf(s, "\t{\n\t\tlet row = m0 + %s;\n", outRow(c, i))
		if !k.interior {
			s.WriteString("\t\tif (row < p.m) {\n")
		}
		for j := range c.rn {
			fmt.Fprintf(s, "\t\t{\n\t\t\tlet col = n0 + %s;\n", outCol(c, j))
			cond := "true"
			if !k.interior {
				cond = "col < p.n"
			}
			fmt.Fprintf(s, "\t\t\tif (%s) {\n\t\t\t\tvar o = acc%d_%d.%s;\n", cond, i, j/4, lanes[j%4])
			fmt.Fprintf(s, "\t\t\t\tlet yi = %s + row * p.ys + col;\n\t\t\t\tif (p.hasC == 1u) { o = o + %s; }\n", outBase(k), bias)
			// LinearAdd: y + s·o, the scale's bits in cb
			s.WriteString("\t\t\t\tif (p.hasC == 2u) { o = Y[yi] + bitcast<f32>(p.cb) * o; }\n\t\t\t\tY[yi] = o;\n\t\t\t}\n\t\t}\n")
		}
		if !k.interior {
			s.WriteString("\t\t}\n")
		}
		s.WriteString("\t}\n")
	}
}

// bindingDecl declares operand arr (X at binding 2, W at binding 3) as its loads read it.
func bindingDecl(arr string, kind, vec int) string {
	binding := 3
	if arr == "X" {
		binding = 2
	}
	typ := "f32"
	switch {
	case kind == opBF16 && vec == 8:
		typ = "vec4<u32>"
	case kind == opBF16:
		typ = "u32"
	case vec == 4:
		typ = "vec4<f32>"
	}
	return fmt.Sprintf("@group(0) @binding(%d) var<storage, read> %s: array<%s>;", binding, arr, typ)
}

// loader generates the code that moves one operand's tile from global memory into
// registers (fetch, for the tile at k0) and from registers into workgroup memory (store).
type loader interface {
	init(s *strings.Builder)
	fetch(s *strings.Builder, k0 string)
	store(s *strings.Builder)
}

// rowLoader loads a tile of rows×kt values of K-contiguous rows: row r of the operand
// starts at element base + r·p.k; the tile's rows start at origin and end at bound.
type rowLoader struct {
	id, arr, shared     string
	kind, vec           int
	rows, stride        int
	origin, bound, base string
	kLen                string // the K extent to load ("p.k"; a split form's slice "kn")
	cfg                 gemmCfg
	interior            bool
}

// loads returns the vector loads per tile and per thread (rounded up).
func (l rowLoader) loads() (total, perThread int) {
	total = l.rows * l.cfg.kt / l.vec
	return total, (total + l.cfg.wg() - 1) / l.cfg.wg()
}

func (l rowLoader) init(s *strings.Builder) {
	total, per := l.loads()
	wg := l.cfg.wg()
	for it := range per {
		v := fmt.Sprintf("%s%d", l.id, it)
		fmt.Fprintf(s, "\tlet %se = li + %du;\n", v, it*wg)
		fmt.Fprintf(s, "\tlet %sr = %se / %du;\n\tlet %sk = (%se %% %du) * %du;\n", v, v, l.cfg.kt/l.vec, v, v, l.cfg.kt/l.vec, l.vec)
		var ok []string
		if total%wg != 0 {
			ok = append(ok, fmt.Sprintf("%se < %du", v, total))
		}
		if !l.interior {
			ok = append(ok, fmt.Sprintf("%s + %sr < %s", l.origin, v, l.bound))
		}
		if len(ok) > 0 {
			fmt.Fprintf(s, "\tlet %sok = %s;\n", v, strings.Join(ok, " && "))
		}
		fmt.Fprintf(s, "\tlet %sp = %s + (%s + %sr) * p.k + %sk;\n", v, l.base, l.origin, v, v)
		switch {
		case l.kind == opBF16 && l.vec == 8:
			fmt.Fprintf(s, "\tvar %sv: vec4<u32>;\n", v)
		case l.vec == 4:
			fmt.Fprintf(s, "\tvar %sv: vec4<f32>;\n", v)
		default:
			fmt.Fprintf(s, "\tvar %sv: f32;\n", v)
		}
	}
}

func (l rowLoader) fetch(s *strings.Builder, k0 string) {
	total, per := l.loads()
	for it := range per {
		v := fmt.Sprintf("%s%d", l.id, it)
		var load string
		switch {
		case l.kind == opQuant:
			load = quantLoad(l.vec, v+"p + "+k0)
		case l.kind == opBF16 && l.vec == 8:
			load = fmt.Sprintf("%s[(%sp + %s) >> 3u]", l.arr, v, k0)
		case l.vec == 4:
			load = fmt.Sprintf("%s[(%sp + %s) >> 2u]", l.arr, v, k0)
		case l.kind == opBF16:
			// element i of a bf16 row: the low half of word i/2 for even i, the high half for odd
			load = fmt.Sprintf("bitcast<f32>(select(%s[(%sp + %s) >> 1u] & 0xffff0000u, %s[(%sp + %s) >> 1u] << 16u, ((%sp + %s) & 1u) == 0u))",
				l.arr, v, k0, l.arr, v, k0, v, k0)
		default:
			load = fmt.Sprintf("%s[%sp + %s]", l.arr, v, k0)
		}
		var ok []string
		if total%l.cfg.wg() != 0 || !l.interior {
			ok = append(ok, v+"ok")
		}
		if !l.interior {
			ok = append(ok, fmt.Sprintf("%s + %sk < %s", k0, v, l.kLen))
		}
		if len(ok) == 0 {
			fmt.Fprintf(s, "\t%sv = %s;\n", v, load)
			continue
		}
		zero := "0.0"
		switch {
		case l.kind == opBF16 && l.vec == 8:
			zero = "vec4<u32>(0u)"
		case l.vec == 4:
			zero = "vec4<f32>(0.0)"
		}
		fmt.Fprintf(s, "\t%sv = %s;\n\tif (%s) { %sv = %s; }\n", v, zero, strings.Join(ok, " && "), v, load)
	}
}

func (l rowLoader) store(s *strings.Builder) {
	total, per := l.loads()
	lanes := [4]string{"x", "y", "z", "w"}
	for it := range per {
		v := fmt.Sprintf("%s%d", l.id, it)
		guard := total%l.cfg.wg() != 0
		if guard {
			fmt.Fprintf(s, "\tif (%se < %du) {\n", v, total)
		}
		put := func(j int, val string) {
			s.WriteString(sharedStore(l.cfg, l.shared, fmt.Sprintf("(%sk + %du) * %du + %sr", v, j, l.stride, v), val))
		}
		switch {
		case l.kind == opBF16 && l.vec == 8:
			// word j holds values 2j (low half) and 2j+1 (high half)
			fmt.Fprintf(s, "\tlet %slo = bitcast<vec4<f32>>(%sv << vec4<u32>(16u));\n", v, v)
			fmt.Fprintf(s, "\tlet %shi = bitcast<vec4<f32>>(%sv & vec4<u32>(0xffff0000u));\n", v, v)
			for j := range 4 {
				put(2*j, fmt.Sprintf("%slo.%s", v, lanes[j]))
				put(2*j+1, fmt.Sprintf("%shi.%s", v, lanes[j]))
			}
		case l.vec == 4:
			for j := range 4 {
				put(j, fmt.Sprintf("%sv.%s", v, lanes[j]))
			}
		default:
			put(0, v+"v")
		}
		if guard {
			s.WriteString("\t}\n")
		}
	}
}

// gatherLoader loads Conv2D's im2col tile: thread li holds output pixel n0 + li % tn (p.pix0
// added: the dispatch's first pixel) and rows kr, kr + d, … of the tile, kr = li / tn, d =
// wg/tn. Its position (channel, ky, kx) in the kernel walks by d per load with carries, so
// no element needs a division.
type gatherLoader struct {
	arr      string
	stride   int
	cfg      gemmCfg
	interior bool
}

func (l gatherLoader) per() (d, n int) {
	d = l.cfg.wg() / l.cfg.tn
	return d, l.cfg.kt / d
}

func (l gatherLoader) init(s *strings.Builder) {
	d, n := l.per()
	tn := l.cfg.tn
	fmt.Fprintf(s, "\tlet gn = li %% %du;\n\tlet gkr = li / %du;\n", tn, tn)
	fmt.Fprintf(s, "\tlet gvalid = n0 + gn < p.n;\n\tlet gpix = p.pix0 + n0 + gn;\n")
	s.WriteString("\tlet goy = gpix / p.outW;\n\tlet gox = gpix - goy * p.outW;\n")
	s.WriteString("\tlet giy0 = i32(goy * p.stride) - i32(p.padT);\n\tlet gix0 = i32(gox * p.stride) - i32(p.padL);\n")
	s.WriteString("\tlet gkk = p.kh * p.kw;\n\tlet gplane = p.inH * p.inW;\n")
	s.WriteString("\tvar gic = gkr / gkk;\n\tvar gky = (gkr - gic * gkk) / p.kw;\n\tvar gkx = gkr - gic * gkk - gky * p.kw;\n")
	fmt.Fprintf(s, "\tlet gdic = %du / gkk;\n\tlet gdky = (%du - gdic * gkk) / p.kw;\n\tlet gdkx = %du - gdic * gkk - gdky * p.kw;\n", d, d, d)
	for q := range n {
		fmt.Fprintf(s, "\tvar g%dv: f32;\n", q)
	}
}

func (l gatherLoader) fetch(s *strings.Builder, _ string) {
	_, n := l.per()
	valid := "gvalid && gic < p.inC && "
	if l.interior {
		valid = ""
	}
	for q := range n {
		fmt.Fprintf(s, "\t{\n\t\tlet iy = giy0 + i32(gky);\n\t\tlet ix = gix0 + i32(gkx);\n\t\tg%dv = 0.0;\n", q)
		// a negative iy or ix is a large u32: one comparison per bound
		fmt.Fprintf(s, "\t\tif (%su32(iy) < p.inH && u32(ix) < p.inW) { g%dv = %s[p.bb + gic * gplane + u32(iy) * p.inW + u32(ix)]; }\n",
			valid, q, l.arr)
		s.WriteString("\t\tgkx += gdkx;\n\t\tif (gkx >= p.kw) { gkx -= p.kw; gky += 1u; }\n")
		s.WriteString("\t\tgky += gdky;\n\t\tif (gky >= p.kh) { gky -= p.kh; gic += 1u; }\n\t\tgic += gdic;\n\t}\n")
	}
}

func (l gatherLoader) store(s *strings.Builder) {
	d, n := l.per()
	for q := range n {
		s.WriteString(sharedStore(l.cfg, "Bs", fmt.Sprintf("(gkr + %du) * %du + gn", q*d, l.stride), fmt.Sprintf("g%dv", q)))
	}
}
