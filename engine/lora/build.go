package lora

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// partNames spells the parts for messages.
var partNames = map[part]string{
	partA: "lora_A (lora_down)", partB: "lora_B (lora_up)", partAlpha: "alpha",
	partW1: "lokr_w1", partW1A: "lokr_w1_a", partW1B: "lokr_w1_b",
	partW2: "lokr_w2", partW2A: "lokr_w2_a", partW2B: "lokr_w2_b",
}

// buildTerms turns one module key's tensors into the terms of the layers it adapts.
func buildTerms(g *group, meta map[string]*peftConfig) ([]Term, error) {
	lora := g.parts[partA] != nil || g.parts[partB] != nil
	lokr := false
	for _, p := range []part{partW1, partW1A, partW1B, partW2, partW2A, partW2B} {
		lokr = lokr || g.parts[p] != nil
	}
	switch {
	case lora && lokr:
		return nil, fmt.Errorf("module %q mixes LoRA and LoKr tensors", g.stem)
	case !lora && !lokr:
		return nil, fmt.Errorf("module %q has an alpha but no LoRA or LoKr tensors", g.stem)
	}
	var alpha *float64
	if t := g.parts[partAlpha]; t != nil {
		v, err := readScalar(t)
		if err != nil {
			return nil, err
		}
		alpha = &v
	}
	if lora {
		return buildLoRA(g, alpha, meta)
	}
	return buildLoKr(g, alpha)
}

func buildLoRA(g *group, alpha *float64, meta map[string]*peftConfig) ([]Term, error) {
	ta, tb := g.parts[partA], g.parts[partB]
	if ta == nil || tb == nil {
		have, miss := partA, partB
		if ta == nil {
			have, miss = partB, partA
		}
		return nil, fmt.Errorf("module %q has %s but no %s", g.stem, partNames[have], partNames[miss])
	}
	a, err := readMatrix(ta, g.shapesOnly)
	if err != nil {
		return nil, err
	}
	// A fused qkv's split depends on B's values (blockDiagonal): read even for shapes.
	b, err := readMatrix(tb, g.shapesOnly && g.tg.split != splitQKV)
	if err != nil {
		return nil, err
	}
	rank := a.Rows
	if b.Cols != rank {
		return nil, fmt.Errorf("module %q: %s is %v and %s is %v: the ranks %d and %d differ",
			g.stem, ta.Name, ta.Shape, tb.Name, tb.Shape, rank, b.Cols)
	}
	if rank > maxRank {
		return nil, fmt.Errorf("module %q: rank %d is above %d", g.stem, rank, maxRank)
	}
	scale := float64(1)
	switch {
	case alpha != nil:
		// kohya's .alpha; BFL and diffusers files rarely carry one (diffusers then raises),
		// but its meaning is the same. sd-scripts stores alpha 0 as "alpha = rank".
		if *alpha != 0 {
			scale = *alpha / float64(rank)
		}
	case g.rule.format == FormatDiffusers:
		// diffusers files keep alpha in the safetensors metadata (lora_adapter_metadata);
		// without it diffusers uses alpha = rank, scale 1.
		if c := meta[metaPrefix(g.rule.comp)]; c != nil {
			scale = c.scaling(strings.TrimPrefix(g.stem, g.rule.prefix), rank)
		}
	}
	base := Term{Component: g.rule.comp, Key: g.stem, Kind: LoRA, In: a.Cols, Rank: rank, Scale: float32(scale)}
	switch g.tg.split {
	case splitQKV:
		return splitLoRAQKV(g, base, a, b)
	case swapHalves:
		if b.Rows%2 != 0 {
			return nil, fmt.Errorf("module %q: %s has %d rows, not (shift, scale) halves", g.stem, tb.Name, b.Rows)
		}
		base.A, base.B = a, swapRows(b)
	default:
		base.A, base.B = a, b
	}
	base.Module, base.Out = g.tg.modules[0], base.B.Rows
	return []Term{base}, nil
}

// splitLoRAQKV distributes a fused qkv adapter over q, k and v: B's rows split in thirds and
// A shared; or, when B is block-diagonal over rank thirds (kohya's per-q/k/v LoRA packed into
// one), each of q, k, v gets its own third of the rank. Both give ΔW_q = rows 0:inner of
// scale·B·A, and so on; the scale stays alpha / full rank.
func splitLoRAQKV(g *group, base Term, a, b Matrix) ([]Term, error) {
	if b.Rows%3 != 0 {
		return nil, fmt.Errorf("module %q: fused qkv %s has %d rows, not a multiple of 3", g.stem, partNames[partB], b.Rows)
	}
	n, r := b.Rows/3, a.Rows
	diag := r%3 == 0 && blockDiagonal(b, 3)
	terms := make([]Term, 3)
	for j := range terms {
		t := base
		t.Module, t.Out = g.tg.modules[j], n
		if diag {
			k := r / 3
			t.Rank = k
			t.A = rowsOf(a, j*k, k)
			t.B = subMatrix(b, j*n, n, j*k, k)
		} else {
			t.A = a
			t.B = Matrix{Rows: n, Cols: r, Data: b.Data[j*n*r : (j+1)*n*r]}
		}
		terms[j] = t
	}
	return terms, nil
}

// blockDiagonal reports whether row chunk j of b (parts equal chunks) is zero outside column
// chunk j.
func blockDiagonal(b Matrix, parts int) bool {
	n, k := b.Rows/parts, b.Cols/parts
	for i := range b.Rows {
		j := i / n
		for c := range b.Cols {
			if c/k != j && b.Data[i*b.Cols+c] != 0 {
				return false
			}
		}
	}
	return true
}

func subMatrix(m Matrix, row, rows, col, cols int) Matrix {
	out := Matrix{Rows: rows, Cols: cols, Data: make([]float32, rows*cols)}
	for i := range rows {
		copy(out.Data[i*cols:(i+1)*cols], m.Data[(row+i)*m.Cols+col:])
	}
	return out
}

// rowsOf is rows [from, from+n) of m, a view (no data for a shapes-only m).
func rowsOf(m Matrix, from, n int) Matrix {
	out := Matrix{Rows: n, Cols: m.Cols}
	if m.Data != nil {
		out.Data = m.Data[from*m.Cols : (from+n)*m.Cols]
	}
	return out
}

// swapRows returns m with its two row halves exchanged.
func swapRows(m Matrix) Matrix {
	if m.Data == nil {
		return m
	}
	h := m.Rows / 2 * m.Cols
	out := Matrix{Rows: m.Rows, Cols: m.Cols, Data: make([]float32, 0, len(m.Data))}
	out.Data = append(append(out.Data, m.Data[h:]...), m.Data[:h]...)
	return out
}

// readFactor reads a LoKr factor: the full matrix, or its two decomposed halves.
func readFactor(g *group, full, pa, pb part) (Factor, error) {
	tf, ta, tb := g.parts[full], g.parts[pa], g.parts[pb]
	switch {
	case tf != nil && ta == nil && tb == nil:
		m, err := readMatrix(tf, g.shapesOnly)
		return Factor{Full: m}, err
	case tf == nil && ta != nil && tb != nil:
		a, err := readMatrix(ta, g.shapesOnly)
		if err != nil {
			return Factor{}, err
		}
		b, err := readMatrix(tb, g.shapesOnly)
		if err != nil {
			return Factor{}, err
		}
		if a.Cols != b.Rows {
			return Factor{}, fmt.Errorf("module %q: %s is %v and %s is %v: inner sizes differ", g.stem, ta.Name, ta.Shape, tb.Name, tb.Shape)
		}
		if a.Cols > maxRank {
			return Factor{}, fmt.Errorf("module %q: rank %d is above %d", g.stem, a.Cols, maxRank)
		}
		return Factor{A: a, B: b}, nil
	}
	return Factor{}, fmt.Errorf("module %q: LoKr needs %s, or %s and %s (and not both)", g.stem, partNames[full], partNames[pa], partNames[pb])
}

func buildLoKr(g *group, alpha *float64) ([]Term, error) {
	w1, err := readFactor(g, partW1, partW1A, partW1B)
	if err != nil {
		return nil, err
	}
	w2, err := readFactor(g, partW2, partW2A, partW2B)
	if err != nil {
		return nil, err
	}
	r1, c1 := w1.Shape()
	r2, c2 := w2.Shape()
	if r1*r2 > maxDim || c1*c2 > maxDim {
		return nil, fmt.Errorf("module %q: kron of w1 [%d, %d] and w2 [%d, %d] is larger than %d in a dimension", g.stem, r1, c1, r2, c2, maxDim)
	}
	// LyCORIS (lycoris/functional/lokr.py): scale = alpha / rank with the rank of the
	// decomposed factor (w1's first); with neither decomposed the rank is alpha itself, so the
	// stored alpha is ignored and the scale is 1.
	rank := 0
	switch {
	case w1.Decomposed():
		rank = w1.A.Cols
	case w2.Decomposed():
		rank = w2.A.Cols
	}
	scale := float64(1)
	if rank > 0 && alpha != nil && *alpha != 0 {
		scale = *alpha / float64(rank)
	}
	base := Term{Component: g.rule.comp, Key: g.stem, Kind: LoKr, Out: r1 * r2, In: c1 * c2, Rank: rank, Scale: float32(scale), W2: w2}
	var parts []Factor
	switch g.tg.split {
	case splitQKV:
		if r1%3 != 0 {
			return nil, fmt.Errorf("module %q: LoKr on fused qkv with lokr_w1 of %d rows cannot be split into q, k, v (need a multiple of 3)", g.stem, r1)
		}
		parts = splitFactorRows(w1, 3)
	case swapHalves:
		if r1%2 != 0 {
			return nil, fmt.Errorf("module %q: LoKr lokr_w1 has %d rows, not (shift, scale) halves", g.stem, r1)
		}
		h := splitFactorRows(w1, 2)
		parts = []Factor{joinFactorRows(h[1], h[0])}
	default:
		parts = []Factor{w1}
	}
	terms := make([]Term, len(parts))
	for j, p := range parts {
		t := base
		t.Module, t.W1 = g.tg.modules[j], p
		t.Out = t.Out / len(parts)
		terms[j] = t
	}
	return terms, nil
}

// splitFactorRows cuts a factor's rows into n equal parts (views; for A·B, A's rows).
func splitFactorRows(f Factor, n int) []Factor {
	m := f.Full
	if f.Decomposed() {
		m = f.A
	}
	k := m.Rows / n
	out := make([]Factor, n)
	for j := range out {
		part := rowsOf(m, j*k, k)
		if f.Decomposed() {
			out[j] = Factor{A: part, B: f.B}
		} else {
			out[j] = Factor{Full: part}
		}
	}
	return out
}

// joinFactorRows stacks two row parts of one factor (sharing B when decomposed).
func joinFactorRows(x, y Factor) Factor {
	join := func(a, b Matrix) Matrix {
		if a.Data == nil {
			return Matrix{Rows: a.Rows + b.Rows, Cols: a.Cols}
		}
		d := append(append(make([]float32, 0, len(a.Data)+len(b.Data)), a.Data...), b.Data...)
		return Matrix{Rows: a.Rows + b.Rows, Cols: a.Cols, Data: d}
	}
	if x.Decomposed() {
		return Factor{A: join(x.A, y.A), B: x.B}
	}
	return Factor{Full: join(x.Full, y.Full)}
}

// metaPrefix is the key prefix of a component in diffusers' lora_adapter_metadata.
func metaPrefix(c Component) string {
	if c == TextEncoder {
		return "text_encoder"
	}
	return "transformer"
}

// maxPatterns caps alpha_pattern entries (each is a regular expression tried per module).
const maxPatterns = 256

// peftConfig is the part of a PEFT LoraConfig that sets the scaling.
type peftConfig struct {
	alpha    *float64
	patterns []alphaPattern
	rslora   bool
}

type alphaPattern struct {
	key   string
	re    *regexp.Regexp
	alpha float64
}

// parsePEFTMetadata reads diffusers' lora_adapter_metadata: a JSON object of LoraConfig
// fields per component, keyed "transformer.lora_alpha", "transformer.alpha_pattern", ….
func parsePEFTMetadata(md map[string]string) (map[string]*peftConfig, error) {
	raw, ok := md["lora_adapter_metadata"]
	if !ok {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &fields); err != nil {
		return nil, fmt.Errorf("metadata lora_adapter_metadata is not a JSON object: %w", err)
	}
	out := map[string]*peftConfig{}
	for k, v := range fields {
		comp, field, ok := strings.Cut(k, ".")
		if !ok {
			continue
		}
		c := out[comp]
		if c == nil {
			c = &peftConfig{}
			out[comp] = c
		}
		var err error
		switch field {
		case "lora_alpha":
			var a *float64
			err = json.Unmarshal(v, &a)
			c.alpha = a
		case "alpha_pattern":
			c.patterns, err = parsePatterns(v)
		case "use_rslora":
			var b *bool
			err = json.Unmarshal(v, &b)
			c.rslora = b != nil && *b
		}
		if err != nil {
			return nil, fmt.Errorf("metadata lora_adapter_metadata field %q: %w", k, err)
		}
	}
	return out, nil
}

// parsePatterns compiles an alpha_pattern the way peft's get_pattern_key matches it: a key
// equal to the module name, or a regular expression matching a dotted suffix of it.
func parsePatterns(v json.RawMessage) ([]alphaPattern, error) {
	var m map[string]float64
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, err
	}
	if len(m) > maxPatterns {
		return nil, fmt.Errorf("%d entries, more than %d", len(m), maxPatterns)
	}
	out := make([]alphaPattern, 0, len(m))
	for k, a := range m {
		re, err := regexp.Compile(`^(.*\.)?(` + k + `)$`)
		if err != nil {
			re = nil // matched literally only
		}
		out = append(out, alphaPattern{key: k, re: re, alpha: a})
	}
	slices.SortFunc(out, func(x, y alphaPattern) int { return strings.Compare(x.key, y.key) })
	return out, nil
}

// scaling is PEFT's lora_alpha / r for module (alpha / √r with rsLoRA), the alpha taken from
// alpha_pattern where one of its keys matches, else lora_alpha, else the rank. The rank is
// the file's (PEFT could not load a file whose rank differs from its config).
func (c *peftConfig) scaling(module string, rank int) float64 {
	alpha := float64(rank)
	if c.alpha != nil {
		alpha = *c.alpha
	}
	if a, ok := c.patternAlpha(module); ok {
		alpha = a
	}
	if c.rslora {
		return alpha / math.Sqrt(float64(rank))
	}
	return alpha / float64(rank)
}

func (c *peftConfig) patternAlpha(module string) (float64, bool) {
	for _, p := range c.patterns {
		if p.key == module {
			return p.alpha, true
		}
	}
	for _, p := range c.patterns {
		if p.re != nil && p.re.MatchString(module) {
			return p.alpha, true
		}
	}
	return 0, false
}

// compareModules orders module names with their block numbers compared as numbers.
func compareModules(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range min(len(as), len(bs)) {
		x, errX := strconv.Atoi(as[i])
		y, errY := strconv.Atoi(bs[i])
		if errX == nil && errY == nil && x != y {
			return x - y
		}
		if c := strings.Compare(as[i], bs[i]); c != 0 && (errX != nil || errY != nil) {
			return c
		}
	}
	return len(as) - len(bs)
}
