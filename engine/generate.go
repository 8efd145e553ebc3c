package engine

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"time"

	"kleinbild/engine/inpaint"
	"kleinbild/engine/vae"
	"kleinbild/gpu"
)

// latentChannels is the transformer's token width: 32 VAE channels patchified 2×2.
const latentChannels = 128

// Generate runs one request. progress (may be nil) is called from the generating goroutine.
// The context is checked before every transformer block, so cancellation is prompt. All
// tensor math runs on the model's backend; the host reads the latents back once per step
// (for the preview) and the image at the end. A weight file that changes on disk while
// mapped stops the run with an error wrapping ErrWeightsChanged and naming the file: it is
// checked before the run and at every progress report (before each block), and a memory
// fault on the generating goroutine is recovered as the same error.
func (m *Model) Generate(ctx context.Context, req Request, progress func(Progress)) (res *Result, err error) {
	if err := m.watch.check(); err != nil {
		return nil, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(weightsChanged); ok {
				res, err = nil, c.err
				return
			}
			res, err = nil, faultError(r, m.watch)
		}
	}()
	return m.generate(ctx, req, func(p Progress) {
		if err := m.watch.check(); err != nil {
			// Stop at once, before the next block reads the mapped weights: unwound
			// (generate's deferred frees run) and returned as the error by the recover above.
			panic(weightsChanged{err})
		}
		if progress != nil {
			progress(p)
		}
	})
}

// weightsChanged carries a weight-file change out of generate to Generate.
type weightsChanged struct{ err error }

// generate runs one request for Generate, which watches the weight files (weightwatch.go).
// It checks the request once (CheckRequest), before any file is read. The stages: the plan
// (plan.go, with the reference images read: references.go), the text (text.go), the
// references through the VAE encoder (references.go), the sampler (sample.go) and the
// decoder (decode.go).
// Inpainting (Request.Image, inpaintinput.go) runs through the same stages: the prepared
// image is the first reference, the sampler starts from its noised latents and blends
// the kept region back after every step, and the decoded picture is finished by
// inpaint.Inputs.Finish (pixels kept outside the mask, a crop pasted back).
func (m *Model) generate(ctx context.Context, req Request, progress func(Progress)) (*Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := newRun(req, progress)
	if err := CheckRequest(req, m.info.Distilled); err != nil {
		return nil, err
	}
	r.report(Progress{Phase: PhaseLoading})
	inp, err := loadInpaint(req)
	if err != nil {
		return nil, err
	}
	var refs []reference
	if inp != nil {
		refs = inp.references()
	} else if refs, err = loadReferences(req.References); err != nil {
		return nil, err
	}
	p, err := planChecked(req, m.info.Distilled, referenceSizes(refs)) // checked above
	if err != nil {
		return nil, err
	}
	if err := checkLatents(p); err != nil {
		return nil, err
	}
	if err := m.setAdapters(req.Adapters, req.AdaptersPartial); err != nil {
		return nil, err
	}
	sc, err := m.info.Scheduler.ByName(p.Schedule, p.Steps, p.ImageTokens())
	if err != nil {
		return nil, err
	}
	r.endPhase(PhaseLoading)

	// Every tensor of this generation, freed on return (errors and cancellation included)
	// once the queued work is done.
	ts := &gpu.Held{B: m.b}
	defer func() {
		_ = m.b.Sync()
		ts.Free()
	}()
	text, err := m.encodeText(ctx, r, p, ts)
	if err != nil {
		return nil, err
	}
	img, ids, err := m.encodeReferences(ctx, r, p, refs, ts)
	if err != nil {
		return nil, err
	}
	var mask []float32
	if inp != nil {
		mask = inp.in.Mask
	}
	lat, final, err := m.sample(ctx, r, p, sc, text, img, ids, mask, ts)
	if err != nil {
		return nil, err
	}
	pix, err := m.decode(ctx, r, p, lat, final, ts)
	if err != nil {
		return nil, err
	}
	pic := vae.ToRGB(pix, p.HeightPx, p.WidthPx)
	if inp != nil {
		// The unmasked pixels pasted back, and a crop pasted into the full picture.
		if pic, err = inp.in.Finish(pix, !req.RawUnmasked, inpaint.DefaultFeather); err != nil {
			return nil, fmt.Errorf("inpainting %s: %w", req.Image, err)
		}
	}
	res := &Result{
		Image:   pic,
		Seed:    req.Seed,
		WidthPx: pic.Rect.Dx(), HeightPx: pic.Rect.Dy(),
		Steps: p.Steps, Guidance: p.Guidance, Schedule: p.Schedule,
		Timings: r.timings,
		Latents: final,
	}
	if !p.CFG {
		res.Guidance = 1
	}
	if req.Latents == nil {
		res.Noise = NoiseName(req.Noise)
	}
	if p.Inpaint {
		res.Strength = p.Strength
	}
	r.report(Progress{Phase: PhaseDone, Step: p.StepsRun(), Steps: p.StepsRun()})
	return res, nil
}

// checkLatents checks the request's initial latents against the plan's size.
func checkLatents(p Plan) error {
	gw, gh := p.Grid()
	n := gw * gh
	if p.Request.Latents != nil && len(p.Request.Latents) != latentChannels*n {
		return fmt.Errorf("initial latents have %d values, want 128×%d×%d = %d for %d×%d px", len(p.Request.Latents), gh, gw, latentChannels*n, p.WidthPx, p.HeightPx)
	}
	return CheckFinite("initial latents", p.Request.Latents)
}

// run is one generation's bookkeeping: progress reports, phase timings and dumps.
type run struct {
	start, phaseStart time.Time
	timings           map[Phase]time.Duration
	progress          func(Progress)
	dumpTo            func(name string, shape []int, data []float32) error
}

func newRun(req Request, progress func(Progress)) *run {
	now := time.Now()
	return &run{start: now, phaseStart: now, timings: map[Phase]time.Duration{}, progress: progress, dumpTo: req.Dump}
}

// report sends p, stamped with the time elapsed, to the progress callback if there is one.
func (r *run) report(p Progress) {
	if r.progress != nil {
		p.Elapsed = time.Since(r.start)
		r.progress(p)
	}
}

// endPhase adds the time since the previous phase ended to p's timing.
func (r *run) endPhase(p Phase) {
	now := time.Now()
	r.timings[p] += now.Sub(r.phaseStart)
	r.phaseStart = now
}

// dump hands an intermediate tensor to Request.Dump, if set.
func (r *run) dump(name string, shape []int, data []float32) error {
	if r.dumpTo == nil {
		return nil
	}
	if err := r.dumpTo(name, shape, data); err != nil {
		return fmt.Errorf("dump %s: %w", name, err)
	}
	return nil
}

// alloc and upload make an F32 tensor held by ts, with errors naming what it is.
func alloc(ts *gpu.Held, what string, shape ...int) (gpu.Tensor, error) {
	t, err := ts.B.Alloc(gpu.F32, shape...)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("allocate %s %v: %w", what, shape, err)
	}
	return ts.Keep(t, nil), nil
}

func upload(ts *gpu.Held, what string, data []float32, shape ...int) (gpu.Tensor, error) {
	t, err := gpu.FromHost(ts.B, data, shape...)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("upload %s %v: %w", what, shape, err)
	}
	return ts.Keep(t, nil), nil
}

// clampUnit maps v to [0, 1] with a fixed contrast for previews.
func clampUnit(v float32) float32 {
	return float32(math.Max(0, math.Min(1, float64(v))))
}
