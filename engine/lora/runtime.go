package lora

import (
	"fmt"

	"kleinbild/gpu"
)

// Runtime applies a stack's terms of one component at run time on a gpu.Backend, next to
// the base weights, which it never touches:
//
//	LoRA: y += s · (x·Aᵀ)·Bᵀ     Linear into [rows, rank], then LinearAdd into y where the
//	                             backend is a gpu.LinearAdder (else Linear into [rows, out],
//	                             AddScaled)
//	LoKr: y += s · x·(W1⊗W2)ᵀ    x[t] viewed as [c1, c2]: u = x·W2ᵀ ([rows·c1, r2]), transposed
//	                             to [r2, rows·c1], ·W1ᵀ ([r2·rows, r1]), transposed back to
//	                             [rows·r1, r2] = [rows, out], AddScaled
//
// LoKr never forms ΔW: its extra memory is the dense factors (W1 [r1, c1], W2 [r2, c2], a
// decomposed factor multiplied out once on upload) and a scratch of 2·rows·(c1·r2 + out)
// floats shared by all layers. The factors are uploaded once per adapter (on a CPU backend
// as views of the adapter's own float32 data); Set with other strengths only changes the
// scales, and terms at strength 0 are skipped. The zero Runtime (or nil) applies nothing.
//
// A Runtime is used by one model: Set must not run concurrently with Linear.
type Runtime struct {
	b       gpu.Backend
	adder   gpu.LinearAdder // b, where it adds a product into y in one pass (nil: it does not)
	comp    Component
	up      map[*Term]*devTerm   // uploaded factors, kept while their adapter stays in the stack
	active  map[string][]applied // by module: the terms with nonzero strength
	perRow  int                  // scratch floats per row the largest active module needs
	scratch gpu.Tensor
}

type devTerm struct {
	kind           Kind
	a, b           gpu.Tensor // LoRA: A [rank, in], B [out, rank]
	w1, w2         gpu.Tensor // LoKr: dense factors
	rank           int
	r1, c1, r2, c2 int
	out            int
}

type applied struct {
	*devTerm
	scale float32
}

// NewRuntime returns an empty Runtime for the terms of comp on b.
func NewRuntime(b gpu.Backend, comp Component) *Runtime {
	adder, _ := b.(gpu.LinearAdder)
	return &Runtime{b: b, adder: adder, comp: comp, up: map[*Term]*devTerm{}, active: map[string][]applied{}}
}

// Set makes s the active stack: it uploads the factors of terms not uploaded yet, frees
// those of adapters no longer in s, and sets every term's scale (strength × the file's
// scale). shapes gives each adaptable module's [out, in]; a term whose module is missing
// or whose shape differs is an error (nothing changes then); after a failed upload no
// adapter applies until the next successful Set.
func (r *Runtime) Set(s Stack, shapes Layers) error {
	if err := s.Check(); err != nil {
		return err
	}
	mods := s.Modules(r.comp)
	keep := map[*Term]bool{}
	for _, w := range s {
		for i := range w.Adapter.Terms {
			keep[&w.Adapter.Terms[i]] = true
		}
	}
	for mod, terms := range mods {
		sh, ok := shapes[mod]
		if !ok {
			return fmt.Errorf("lora: %s: the model has no layer %s", terms[0].Key, mod)
		}
		for _, t := range terms {
			if t.Out != sh[0] || t.In != sh[1] {
				return fmt.Errorf("lora: %s: ΔW is [%d, %d], the layer %s [%d, %d]", t.Key, t.Out, t.In, mod, sh[0], sh[1])
			}
		}
	}
	// Free what the new stack no longer holds, then upload what it adds.
	for t, d := range r.up {
		if !keep[t] {
			r.free(d)
			delete(r.up, t)
		}
	}
	active := map[string][]applied{}
	perRow := 0
	r.active, r.perRow = active, 0 // until the uploads succeed, nothing applies
	for mod, terms := range mods {
		for _, t := range terms {
			d, err := r.upload(t.Term)
			if err != nil {
				return fmt.Errorf("lora: %s: upload %s: %w", t.Key, mod, err)
			}
			active[mod] = append(active[mod], applied{devTerm: d, scale: t.Scale})
			perRow = max(perRow, d.scratchPerRow(r.adder != nil))
		}
	}
	r.active, r.perRow = active, perRow
	r.b.Free(r.scratch)
	r.scratch = gpu.Tensor{}
	return nil
}

// Active reports whether any term applies.
func (r *Runtime) Active() bool { return r != nil && len(r.active) > 0 }

// scratchPerRow is the scratch floats per row the term needs; fused: its second LoRA
// product adds into y (gpu.LinearAdder) instead of going through scratch.
func (d *devTerm) scratchPerRow(fused bool) int {
	if d.kind == LoRA && fused {
		return d.rank
	}
	if d.kind == LoRA {
		return d.rank + d.out
	}
	return 2 * (d.c1*d.r2 + d.out)
}

func (r *Runtime) upload(t *Term) (*devTerm, error) {
	if d, ok := r.up[t]; ok {
		return d, nil
	}
	d := &devTerm{kind: t.Kind, rank: t.Rank, out: t.Out}
	var err error
	if t.Kind == LoRA {
		if d.a, err = r.b.WeightF32(t.A.Data, t.A.Rows, t.A.Cols); err != nil {
			return nil, err
		}
		if d.b, err = r.b.WeightF32(t.B.Data, t.B.Rows, t.B.Cols); err != nil {
			r.b.Free(d.a)
			return nil, err
		}
	} else {
		w1, w2 := t.W1.Dense(), t.W2.Dense()
		d.r1, d.c1, d.r2, d.c2 = w1.Rows, w1.Cols, w2.Rows, w2.Cols
		if d.w1, err = r.b.WeightF32(w1.Data, w1.Rows, w1.Cols); err != nil {
			return nil, err
		}
		if d.w2, err = r.b.WeightF32(w2.Data, w2.Rows, w2.Cols); err != nil {
			r.b.Free(d.w1)
			return nil, err
		}
	}
	r.up[t] = d
	return d, nil
}

func (r *Runtime) free(d *devTerm) {
	for _, t := range []gpu.Tensor{d.a, d.b, d.w1, d.w2} {
		r.b.Free(t)
	}
}

// Prepare makes sure the scratch holds what Add needs for up to rows rows; call it before a
// forward pass (it allocates only when rows grew).
func (r *Runtime) Prepare(rows int) error {
	if !r.Active() {
		return nil
	}
	n := rows * r.perRow
	if r.scratch.Len() >= n {
		return nil
	}
	r.b.Free(r.scratch)
	r.scratch = gpu.Tensor{}
	t, err := r.b.Alloc(gpu.F32, n)
	if err != nil {
		return fmt.Errorf("lora: scratch of %d floats: %w", n, err)
	}
	r.scratch = t
	return nil
}

// Add adds the active terms of module to y [rows, out] for the input x [rows, in] (both
// dense). Prepare(rows or more) must have succeeded since the last Set. Without active terms
// for module it does nothing.
func (r *Runtime) Add(y, x gpu.Tensor, rows int, module string) {
	if r == nil {
		return
	}
	r.AddUsing(r.scratch, y, x, rows, module)
}

// PerRow is the scratch (floats per row) AddUsing needs.
func (r *Runtime) PerRow() int {
	if r == nil {
		return 0
	}
	return r.perRow
}

// AddUsing is Add with the caller's scratch tensor of at least rows·PerRow() floats (for
// models whose passes may run concurrently).
func (r *Runtime) AddUsing(scratch, y, x gpu.Tensor, rows int, module string) {
	if r == nil {
		return
	}
	b := r.b
	none := gpu.Tensor{}
	for _, t := range r.active[module] {
		if t.kind == LoRA {
			h := scratch.Slice(0, rows*t.rank)
			b.Linear(h, x, t.a, none, rows)
			if r.adder != nil {
				r.adder.LinearAdd(y, h, t.b, rows, t.scale)
				continue
			}
			o := scratch.Slice(rows*t.rank, rows*(t.rank+t.out))
			b.Linear(o, h, t.b, none, rows)
			b.AddScaled(y, o, t.scale)
			continue
		}
		nu, no := rows*t.c1*t.r2, rows*t.out
		u := scratch.Slice(0, nu)
		ut := scratch.Slice(nu, 2*nu)
		v := scratch.Slice(2*nu, 2*nu+no)
		vt := scratch.Slice(2*nu+no, 2*nu+2*no)
		b.Linear(u, x, t.w2, none, rows*t.c1)  // [rows·c1, r2]
		b.Transpose(ut, u, rows*t.c1, t.r2)    // [r2, rows·c1] = [r2·rows, c1]
		b.Linear(v, ut, t.w1, none, t.r2*rows) // [r2·rows, r1] = [r2, rows·r1]
		b.Transpose(vt, v, t.r2, rows*t.r1)    // [rows·r1, r2] = [rows, out]
		b.AddScaled(y, vt, t.scale)
	}
}

// Bytes is the backend memory the uploaded factors and the scratch take.
func (r *Runtime) Bytes() int64 {
	if r == nil {
		return 0
	}
	n := r.scratch.Bytes()
	for _, d := range r.up {
		for _, t := range []gpu.Tensor{d.a, d.b, d.w1, d.w2} {
			n += t.Bytes()
		}
	}
	return n
}

// Close frees everything the Runtime uploaded; it applies nothing afterwards.
func (r *Runtime) Close() {
	if r == nil {
		return
	}
	for t, d := range r.up {
		r.free(d)
		delete(r.up, t)
	}
	r.b.Free(r.scratch)
	r.scratch = gpu.Tensor{}
	r.active, r.perRow = map[string][]applied{}, 0
}
