// Package remap translates the tensor names and layouts of the model files people keep — Black
// Forest Labs single files, ComfyUI-GGUF and stable-diffusion.cpp GGUFs, llama.cpp Qwen3
// GGUFs, ComfyUI text encoder and VAE files — into the diffusers / transformers names and
// layouts the engine loads (the names of a Hugging Face diffusers folder).
//
// It computes plans only: which source tensor, and which of its rows, make each target
// tensor. It reads no file. Every transform acts on whole rows of the outermost dimension
// (a fused qkv matrix split in three, the two halves of the final modulation swapped, a 1x1
// convolution kernel viewed as a matrix), so a plan applies to packed quantized rows as well
// as to plain ones, without dequantizing.
package remap

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Naming is a file's tensor naming convention.
type Naming int

// The namings Detect tells apart.
const (
	Unknown   Naming = iota
	Diffusers        // diffusers / transformers names: the plan is the identity
	BFL              // Black Forest Labs' own module names (bare or with sd.cpp's model.diffusion_model. prefix)
	LlamaCpp         // llama.cpp GGUF names (token_embd, blk.N.attn_q, ...)
)

func (n Naming) String() string {
	switch n {
	case Diffusers:
		return "diffusers"
	case BFL:
		return "BFL"
	case LlamaCpp:
		return "llama.cpp"
	}
	return "unknown"
}

// Op is how a target tensor is made from its source tensor.
type Op int

// The ops. All keep the bytes of each row as they are.
const (
	// Copy takes the source as it is.
	Copy Op = iota
	// Chunk takes rows [Part*n/Parts, (Part+1)*n/Parts) of the n source rows (torch.chunk
	// along dim 0): a fused qkv weight split into q, k and v.
	Chunk
	// SwapHalves puts rows [n/2, n) before rows [0, n/2): BFL's final-layer modulation is
	// [shift; scale], diffusers' norm_out is [scale; shift].
	SwapHalves
	// Squeeze drops trailing dimensions of size 1: a [C, C, 1, 1] convolution kernel used as
	// a [C, C] linear weight. The data is unchanged.
	Squeeze
)

// Source says where a target tensor comes from.
type Source struct {
	Name        string // tensor name in the file
	Op          Op
	Part, Parts int // for Chunk
}

// Plan maps each target name (diffusers / transformers) to its source.
type Plan map[string]Source

// Targets lists the plan's target names, sorted.
func (p Plan) Targets() []string {
	out := make([]string, 0, len(p))
	for k := range p {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Rows returns the source row ranges [lo, hi) that make up the target, in order, for a source
// whose outermost dimension is n.
func (s Source) Rows(n int) ([][2]int, error) {
	switch s.Op {
	case Copy, Squeeze:
		return [][2]int{{0, n}}, nil
	case Chunk:
		if s.Parts <= 0 || s.Part < 0 || s.Part >= s.Parts || n%s.Parts != 0 {
			return nil, fmt.Errorf("%s: cannot take part %d of %d from %d rows", s.Name, s.Part, s.Parts, n)
		}
		k := n / s.Parts
		return [][2]int{{s.Part * k, (s.Part + 1) * k}}, nil
	case SwapHalves:
		if n%2 != 0 {
			return nil, fmt.Errorf("%s: cannot swap the halves of %d rows", s.Name, n)
		}
		return [][2]int{{n / 2, n}, {0, n / 2}}, nil
	}
	return nil, fmt.Errorf("%s: unknown op %d", s.Name, s.Op)
}

// Shape returns the target's shape for a source of shape src (torch order, outermost first).
func (s Source) Shape(src []int) ([]int, error) {
	if len(src) == 0 {
		if s.Op != Copy {
			return nil, fmt.Errorf("%s: a scalar has no rows", s.Name)
		}
		return nil, nil
	}
	out := slices.Clone(src)
	switch s.Op {
	case Squeeze:
		for len(out) > 1 && out[len(out)-1] == 1 {
			out = out[:len(out)-1]
		}
		return out, nil
	case Chunk, SwapHalves:
		rows, err := s.Rows(src[0])
		if err != nil {
			return nil, err
		}
		n := 0
		for _, r := range rows {
			n += r[1] - r[0]
		}
		out[0] = n
	}
	return out, nil
}

// Bytes returns the target's data from the source's data, whose outermost dimension has n
// rows of rowBytes bytes each (rowBytes = the packed size of one row for quantized data).
// Copy, Squeeze and Chunk return a view of data; SwapHalves returns a new slice.
func (s Source) Bytes(data []byte, n, rowBytes int) ([]byte, error) {
	if n < 0 || rowBytes < 0 || (rowBytes > 0 && n > len(data)/rowBytes) || n*rowBytes != len(data) {
		return nil, fmt.Errorf("%s: %d bytes is not %d rows of %d bytes", s.Name, len(data), n, rowBytes)
	}
	rows, err := s.Rows(n)
	if err != nil {
		return nil, err
	}
	if len(rows) == 1 {
		return data[rows[0][0]*rowBytes : rows[0][1]*rowBytes], nil
	}
	out := make([]byte, 0, len(data))
	for _, r := range rows {
		out = append(out, data[r[0]*rowBytes:r[1]*rowBytes]...)
	}
	return out, nil
}

// identity maps every name to itself.
func identity(names []string) Plan {
	p := make(Plan, len(names))
	for _, n := range names {
		p[n] = Source{Name: n}
	}
	return p
}

// blockIndex splits "prefix.N.rest" into N and rest for the given prefix ("double_blocks.").
func blockIndex(name, prefix string) (int, string, bool) {
	s, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(s, ".")
	if !ok {
		return 0, "", false
	}
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || strconv.Itoa(i) != num {
		return 0, "", false
	}
	return i, rest, true
}

// unmapped formats the names a plan could not place.
func unmapped(what string, names []string) error {
	const show = 5
	list := names
	if len(list) > show {
		list = list[:show]
	}
	more := ""
	if len(names) > show {
		more = fmt.Sprintf(" and %d more", len(names)-show)
	}
	return fmt.Errorf("%s: %d tensors with unknown names: %s%s", what, len(names), strings.Join(list, ", "), more)
}

// Has reports whether the plan makes the named target.
func (p Plan) Has(name string) bool { _, ok := p[name]; return ok }

// Shapes returns the targets' shapes given the shapes of the source tensors (by source name).
func (p Plan) Shapes(src map[string][]int) (Shapes, error) {
	out := make(Shapes, len(p))
	for name, s := range p {
		sh, ok := src[s.Name]
		if !ok {
			return nil, fmt.Errorf("%s: source tensor %s missing", name, s.Name)
		}
		t, err := s.Shape(sh)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}
