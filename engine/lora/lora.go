// Package lora reads LoRA and LoKr adapters for FLUX.2-klein (and its Qwen3 text encoder) from
// safetensors files in the layouts people download: diffusers / PEFT, BFL / ai-toolkit,
// kohya / musubi and LyCORIS / SimpleTuner LoKr. It maps every adapted module to the diffusers
// name of the layer it changes and keeps the adapter as small factors with their scale:
//
//	LoRA: ΔW = scale · B·A              (A [rank, in], B [out, rank], scale = alpha / rank)
//	LoKr: ΔW = scale · kron(w1, w2)     (LyCORIS' definition)
//
// A layer then computes y = x·Wᵀ + Σ strengthᵢ · x·ΔWᵢᵀ. The package does the parsing, the
// name mapping, the shape check against a model, and the reference math (ΔW, and the
// low-rank product applied to activations); it prints nothing and imports no model code.
package lora

import (
	"fmt"
	"math"
	"slices"

	"kleinbild/weights"
)

// Matrix is a dense row-major float32 matrix.
type Matrix struct {
	Rows, Cols int
	Data       []float32 // len Rows·Cols
}

// At returns element (i, j).
func (m Matrix) At(i, j int) float32 { return m.Data[i*m.Cols+j] }

// Factor is one Kronecker factor of a LoKr term: Full, or the product A·B when A is set.
type Factor struct {
	Full Matrix // [rows, cols] when not decomposed
	A, B Matrix // [rows, rank] · [rank, cols] when decomposed
}

// Decomposed reports whether the factor is stored as A·B.
func (f *Factor) Decomposed() bool { return f.A.Rows > 0 }

// Shape is the factor's [rows, cols].
func (f *Factor) Shape() (rows, cols int) {
	if f.Decomposed() {
		return f.A.Rows, f.B.Cols
	}
	return f.Full.Rows, f.Full.Cols
}

// Dense returns the factor as one matrix (A·B computed in float64 when decomposed).
func (f *Factor) Dense() Matrix {
	if !f.Decomposed() {
		return f.Full
	}
	return matmul(f.A, f.B)
}

// Kind tells a LoRA term from a LoKr term.
type Kind int

// The adapter kinds.
const (
	LoRA Kind = iota
	LoKr
)

func (k Kind) String() string {
	if k == LoKr {
		return "LoKr"
	}
	return "LoRA"
}

// Term is one adapter's change to one layer: ΔW = Scale · B·A (LoRA) or Scale · kron(W1, W2)
// (LoKr), of shape [Out, In]. Scale is the file's alpha / rank rule; strengths come on top.
type Term struct {
	Module    string // diffusers (or, for the text encoder, transformers) module name
	Component Component
	Key       string // the file's module key it came from (several terms share one for fused qkv)
	Kind      Kind
	Out, In   int
	Rank      int // LoRA rank; for LoKr the rank of the decomposed factor (0: none)
	Scale     float32

	A, B   Matrix // LoRA: A [Rank, In], B [Out, Rank]
	W1, W2 Factor // LoKr
}

// Adapter is one parsed adapter file.
type Adapter struct {
	Path     string
	Format   Format // the format of most of its keys
	Terms    []Term // sorted by component, then module
	Metadata map[string]string
	// Unmatched lists (sorted) the file's tensor names that adapt nothing Kleinbild knows:
	// modules of other models, unknown suffixes, DoRA scales.
	Unmatched []string
}

// Limits on what an adapter file may ask for, far above any real FLUX.2 or Qwen3 layer.
const (
	maxDim  = 1 << 17 // rows or columns of one layer
	maxRank = 1 << 14
)

// Open reads the adapter file at path (through the guarded reader: folders, FIFOs and other
// special files are refused) and closes it again; the adapter holds float32 copies.
func Open(path string) (*Adapter, error) {
	f, err := weights.OpenFile(path)
	if err != nil {
		return nil, &Error{Path: path, Err: err, named: true}
	}
	defer f.Close()
	a, err := Parse(f)
	if err != nil {
		return nil, err
	}
	a.Path = path
	return a, nil
}

// Inspect describes the adapter file at path (Summary) from its header and its tensors'
// shapes, without reading the factors (only the small B of a fused qkv adapter, whose split
// depends on its values): a listing of large files costs little memory. Values that Open
// would refuse (NaN) are not seen; Open still checks them.
func Inspect(path string) (Summary, error) {
	f, err := weights.OpenFile(path)
	if err != nil {
		return Summary{}, &Error{Path: path, Err: err, named: true}
	}
	defer f.Close()
	var a *Adapter
	if gerr := weights.Guard(f.Path, func() error { a, err = parseFile(f, true); return nil }); gerr != nil {
		return Summary{}, &Error{Path: f.Path, Err: gerr, named: true}
	}
	if err != nil {
		return Summary{}, err
	}
	return a.Summary(), nil
}

// ParseBytes parses an adapter held in memory (tests, fuzzing); name is used in errors.
func ParseBytes(name string, data []byte) (*Adapter, error) {
	f, err := weights.ParseBytes(name, data)
	if err != nil {
		return nil, &Error{Path: name, Err: err, named: true}
	}
	defer f.Close()
	a, err := Parse(f)
	if err != nil {
		return nil, err
	}
	a.Path = name
	return a, nil
}

// group is every tensor of one module key.
type group struct {
	stem       string
	rule       prefixRule
	tg         target
	parts      map[part]*weights.Tensor
	shapesOnly bool // Inspect: the factors' shapes, not their data
}

// Parse reads an open safetensors file as an adapter. Errors name the file and, where one is
// at fault, the module and the shapes. A file that shrinks while it is read (a trainer saving
// over it) is an error wrapping weights.ErrFileChanged, not a crash (weights.Guard).
func Parse(f *weights.File) (*Adapter, error) {
	var a *Adapter
	var err error
	if gerr := weights.Guard(f.Path, func() error { a, err = parseFile(f, false); return nil }); gerr != nil {
		return nil, &Error{Path: f.Path, Err: gerr, named: true}
	}
	return a, err
}

// parseFile is Parse, unguarded; shapesOnly reads no factor data (Inspect).
func parseFile(f *weights.File, shapesOnly bool) (*Adapter, error) {
	a := &Adapter{Path: f.Path, Metadata: f.Metadata}
	groups := map[string]*group{}
	var order []string
	formats := map[Format]int{}
	for _, name := range f.Names() {
		stem, p := splitKey(name)
		if p == partNone {
			a.Unmatched = append(a.Unmatched, name)
			continue
		}
		g := groups[stem]
		if g == nil {
			rule, tg, ok := resolveStem(stem)
			if !ok {
				a.Unmatched = append(a.Unmatched, name)
				continue
			}
			g = &group{stem: stem, rule: rule, tg: tg, parts: map[part]*weights.Tensor{}, shapesOnly: shapesOnly}
			groups[stem] = g
			order = append(order, stem)
		}
		t, err := f.Tensor(name)
		if err != nil {
			return nil, &Error{Path: f.Path, Err: err, named: true}
		}
		g.parts[p] = t
		formats[g.rule.format]++
	}
	if len(groups) == 0 {
		return nil, &Error{Path: f.Path, Err: fmt.Errorf("no LoRA or LoKr tensors of FLUX.2-klein or its Qwen3 text encoder among %d tensors%s",
			len(f.Names()), firstFew(a.Unmatched))}
	}
	a.Format = dominant(formats)
	meta, err := parsePEFTMetadata(f.Metadata)
	if err != nil {
		return nil, &Error{Path: f.Path, Err: err}
	}
	seen := map[string]string{}
	for _, stem := range order {
		terms, err := buildTerms(groups[stem], meta)
		if err != nil {
			return nil, &Error{Path: f.Path, Err: err}
		}
		for _, t := range terms {
			id := t.Component.String() + " " + t.Module
			if prev, dup := seen[id]; dup {
				return nil, &Error{Path: f.Path, Err: fmt.Errorf("module %s is adapted twice (by %q and %q)", t.Module, prev, t.Key)}
			}
			seen[id] = t.Key
			a.Terms = append(a.Terms, t)
		}
	}
	slices.SortStableFunc(a.Terms, func(x, y Term) int {
		if x.Component != y.Component {
			return int(x.Component) - int(y.Component)
		}
		return compareModules(x.Module, y.Module)
	})
	slices.Sort(a.Unmatched)
	return a, nil
}

// dominant is the format with the most keys (ties: the lower Format).
func dominant(counts map[Format]int) Format {
	best, n := FormatUnknown, 0
	for f := FormatDiffusers; f <= FormatBare; f++ {
		if counts[f] > n {
			best, n = f, counts[f]
		}
	}
	return best
}

// firstFew formats up to four names for an error message.
func firstFew(names []string) string {
	if len(names) == 0 {
		return ""
	}
	const n = 4
	s := fmt.Sprintf(" (e.g. %q", names[0])
	for _, x := range names[1:min(n, len(names))] {
		s += fmt.Sprintf(", %q", x)
	}
	if len(names) > n {
		s += fmt.Sprintf(", … %d more", len(names)-n)
	}
	return s + ")"
}

// readMatrix copies a 2-D float tensor, refusing other ranks, oversized dimensions and
// non-finite values; shapesOnly checks the shape and reads nothing (no Data).
func readMatrix(t *weights.Tensor, shapesOnly bool) (Matrix, error) {
	if len(t.Shape) != 2 {
		return Matrix{}, fmt.Errorf("tensor %q has shape %v, want a matrix", t.Name, t.Shape)
	}
	r, c := t.Shape[0], t.Shape[1]
	if r <= 0 || c <= 0 || r > maxDim || c > maxDim {
		return Matrix{}, fmt.Errorf("tensor %q has shape %v, outside 1..%d", t.Name, t.Shape, maxDim)
	}
	if shapesOnly {
		return Matrix{Rows: r, Cols: c}, nil
	}
	data, err := t.Float32()
	if err != nil {
		return Matrix{}, err
	}
	if t.DType == weights.F32 {
		data = slices.Clone(data) // Float32 may return a view of the file
	}
	for i, v := range data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return Matrix{}, fmt.Errorf("tensor %q holds %v at [%d, %d]", t.Name, v, i/c, i%c)
		}
	}
	return Matrix{Rows: r, Cols: c, Data: data}, nil
}

// readScalar reads a 0-d (or one-element) float tensor such as alpha.
func readScalar(t *weights.Tensor) (float64, error) {
	if t.Numel() != 1 || len(t.Shape) > 1 {
		return 0, fmt.Errorf("tensor %q has shape %v, want a scalar", t.Name, t.Shape)
	}
	var v [1]float32
	if err := t.ReadFloat32(v[:]); err != nil {
		return 0, err
	}
	x := float64(v[0])
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("tensor %q is %v", t.Name, x)
	}
	return x, nil
}
