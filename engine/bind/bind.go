// Package bind is the one weight binder of the models (flux2, qwen3, vae): it reads the
// tensors a model names from a weights.Source (a safetensors folder, a single file, a GGUF
// file through its remapping), checks each one's shape and dtype, and makes them weight
// tensors of a gpu.Backend: zero-copy views of BF16 and F32 data on a CPU backend, copies on
// a device backend, quantized Linear weights kept packed where the backend takes them.
//
// A Binder collects every problem instead of stopping at the first, so that a load names all
// the tensors that are wrong. Without a source it reads nothing and records the tensors asked
// for: a model's TensorSpecs, the list its load checks and from which lora.LayersOf derives
// the layers adapters may target, come from the same binding code as the load.
package bind

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"kleinbild/gpu"
	"kleinbild/weights"
)

// Binder reads, checks and makes the tensors of one model. Use New or Record.
type Binder struct {
	src    weights.Source // nil: record the tensors asked for, read nothing
	b      gpu.Backend    // nil: read and check, make no backend tensors
	prefix string
	made   gpu.Held
	errs   []error
	specs  []weights.TensorSpec
	asked  map[string]bool // every name looked up in src (with the prefix)
}

// New returns a Binder reading src and making tensors of b; with a nil b it only reads and
// checks (for host views, see Matrix).
func New(src weights.Source, b gpu.Backend) *Binder {
	return &Binder{src: src, b: b, made: gpu.Held{B: b}}
}

// Record returns a Binder that reads nothing and records the name and shape of every tensor
// asked for (see Specs).
func Record() *Binder { return &Binder{} }

// SetPrefix puts p before every name asked for from then on ("model." for Qwen3ForCausalLM
// checkpoints).
func (bd *Binder) SetPrefix(p string) { bd.prefix = p }

// Specs lists the tensors asked for, in order, when recording.
func (bd *Binder) Specs() []weights.TensorSpec { return bd.specs }

// Fail adds a problem found by the model's own checks.
func (bd *Binder) Fail(err error) { bd.errs = append(bd.errs, err) }

// Failed reports whether a problem was found. From then on the Binder goes on checking but
// reads no more data and makes no more tensors.
func (bd *Binder) Failed() bool { return len(bd.errs) > 0 }

// Err joins the problems found (nil: none), listing at most limit of them and then how many
// more there were.
func (bd *Binder) Err(limit int) error {
	errs := bd.errs
	if len(errs) > limit {
		errs = append(errs[:limit:limit], fmt.Errorf("... and %d more problems", len(bd.errs)-limit))
	}
	return errors.Join(errs...)
}

// FailUnread adds one problem naming the tensors of the source that were not asked for
// (the first few, and how many), except those named in ignore, with why: weights the model
// would silently leave out mean that its configuration does not describe them.
func (bd *Binder) FailUnread(why string, ignore ...string) {
	if bd.src == nil {
		return
	}
	var unread []string
	for _, n := range bd.src.Names() {
		if !bd.asked[n] && !slices.Contains(ignore, n) {
			unread = append(unread, fmt.Sprintf("%q", n))
		}
	}
	const listed = 3
	switch n := len(unread); {
	case n == 1:
		bd.Fail(fmt.Errorf("tensor %s is not expected: %s", unread[0], why))
	case n > listed:
		bd.Fail(fmt.Errorf("%d tensors are not expected (%s and %d more): %s", n, strings.Join(unread[:listed], ", "), n-listed, why))
	case n > 1:
		bd.Fail(fmt.Errorf("%d tensors are not expected (%s): %s", n, strings.Join(unread, ", "), why))
	}
}

// Made is the set of backend tensors made so far; the caller owns it (Free frees them).
func (bd *Binder) Made() gpu.Held { return bd.made }

// Free frees every backend tensor made (after a failed load).
func (bd *Binder) Free() {
	if bd.b != nil {
		bd.made.Free()
	}
}

// recording reports whether the Binder only records the tensors asked for, and records one.
func (bd *Binder) recording(name string, shape []int) bool {
	if bd.src != nil {
		return false
	}
	bd.specs = append(bd.specs, weights.TensorSpec{Name: bd.prefix + name, Shape: append([]int(nil), shape...)})
	return true
}

// making reports whether backend tensors are made: not when only checking, nor after a
// problem (the load fails; the checks go on).
func (bd *Binder) making() bool { return bd.b != nil && !bd.Failed() }

// keep records a tensor made by the backend, or the error making the named one.
func (bd *Binder) keep(name string, t gpu.Tensor, err error) gpu.Tensor {
	if err != nil {
		bd.Fail(fmt.Errorf("%s: weights to the %s backend: %w", name, bd.b.Name(), err))
		return gpu.Tensor{}
	}
	return bd.made.Keep(t, nil)
}

// lookup returns the named tensor after checking its shape (nil when recording or on a
// problem, which it records). The errors of the source name the tensor and its file.
func (bd *Binder) lookup(name string, shape []int) *weights.Tensor {
	if bd.recording(name, shape) {
		return nil
	}
	if bd.asked == nil {
		bd.asked = map[string]bool{}
	}
	bd.asked[bd.prefix+name] = true
	t, err := bd.src.TensorShape(bd.prefix+name, shape...)
	if err != nil {
		bd.Fail(err)
		return nil
	}
	return t
}

// Tensor returns the named tensor after checking that it has the given shape and a float
// dtype (BF16, F16 or F32; a quantized tensor counts as F32). It returns nil when
// recording or on a problem, which it records.
func (bd *Binder) Tensor(name string, shape ...int) *weights.Tensor {
	t := bd.lookup(name, shape)
	if t == nil {
		return nil
	}
	switch t.DType {
	case weights.BF16, weights.F16, weights.F32:
		return t
	}
	bd.Fail(fmt.Errorf("%s: tensor %q is %s, want a float type", t.File, t.Name, t.DType))
	return nil
}

// HostVector returns the named tensor of n elements as a float32 copy of its own (it
// outlives the mapping); nil when recording or on a problem.
func (bd *Binder) HostVector(name string, n int) []float32 {
	t := bd.Tensor(name, n)
	if t == nil {
		return nil
	}
	v := make([]float32, n)
	if err := t.ReadFloat32(v); err != nil {
		bd.Fail(err)
		return nil
	}
	return v
}

// Vector returns the named tensor of n elements as a float32 backend tensor made from a
// copy of its own.
func (bd *Binder) Vector(name string, n int) gpu.Tensor {
	return bd.Upload(name, bd.HostVector(name, n))
}

// Upload makes the float32 values v (values of the model's own, unchanged while the tensor
// lives; nil: none) a 1-D backend tensor; name says what they are in errors.
func (bd *Binder) Upload(name string, v []float32) gpu.Tensor {
	if v == nil || !bd.making() {
		return gpu.Tensor{}
	}
	t, err := bd.b.WeightF32(v, len(v))
	return bd.keep(name, t, err)
}

// Linear returns the named Linear weight [out, in] as a backend tensor: quantized data
// packed where the backend takes it (dequantized to float32 where it refuses), BF16 and
// F32 data as they are (zero-copy on a CPU backend), F16 converted to float32.
func (bd *Binder) Linear(name string, out, in int) gpu.Tensor {
	m := bd.matrix(name, 0, true, []int{out, in})
	return bd.make(name, m)
}

// Weight returns the named tensor of shape [out, rest...] (a conv kernel [out, in, k, k], a
// matrix [out, in]) as a backend tensor [rows, prod(rest)], made as Linear makes
// unquantized data. rows, if positive, keeps only the first rows rows (output channels);
// otherwise all out are kept.
func (bd *Binder) Weight(name string, rows, out int, rest ...int) gpu.Tensor {
	m := bd.matrix(name, rows, false, append([]int{out}, rest...))
	return bd.make(name, m)
}

func (bd *Binder) make(name string, m Matrix) gpu.Tensor {
	if m.empty() {
		return gpu.Tensor{}
	}
	t, err := m.Upload(bd.b)
	return bd.keep(name, t, err)
}

// matrix reads the named tensor of the given shape as a Matrix [rows, prod(shape[1:])]
// (rows <= 0: shape[0]) for a backend: a quantized Linear weight (packed) kept packed, BF16
// and F32 data as views, F16 and other quantized data converted to float32. It reads no
// data when no backend tensor is made (see making).
func (bd *Binder) matrix(name string, rows int, packed bool, shape []int) Matrix {
	t := bd.Tensor(name, shape...)
	if t == nil || !bd.making() {
		return Matrix{}
	}
	out, in := shape[0], 1
	for _, d := range shape[1:] {
		in *= d
	}
	if rows > 0 {
		out = min(rows, out)
	}
	m := Matrix{Out: out, In: in, file: t.File}
	var err error
	switch {
	case packed && t.Quantized() != nil:
		m.Packed = t
	case t.DType == weights.BF16:
		m.BF16, err = t.BF16()
		m.BF16 = m.BF16[:min(len(m.BF16), out*in)]
	default:
		m.F32, err = t.Float32()
		m.F32 = m.F32[:min(len(m.F32), out*in)]
	}
	if err != nil {
		bd.Fail(err)
		return Matrix{}
	}
	return m
}

// Within is err (a load's problems) said of where, a model's file or folder: "where: " and
// err's lines, each without a "where: " of its own, so that a file's path is given once, not
// on every problem the binder found in it. It wraps err.
func Within(where string, err error) error {
	if err == nil {
		return nil
	}
	return within{where, err}
}

type within struct {
	where string
	err   error
}

func (w within) Error() string {
	lines := strings.Split(w.err.Error(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, w.where+": ")
	}
	return w.where + ": " + strings.Join(lines, "\n")
}

func (w within) Unwrap() error { return w.err }
