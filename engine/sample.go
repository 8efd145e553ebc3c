package engine

import (
	"context"
	"fmt"

	"kleinbild/engine/flux2"
	"kleinbild/engine/inpaint"
	"kleinbild/engine/sched"
	"kleinbild/gpu"
)

// sampler is the state of the sampling loop: the flow-matching Euler sampler of diffusers'
// FlowMatchEulerDiscreteScheduler with classifier-free guidance.
type sampler struct {
	p       Plan
	sc      sched.Schedule
	text    textInput
	img     gpu.Tensor // the joint image sequence: target tokens, then references
	ids     []int64
	txtIDs  []int64
	x       gpu.Tensor // the target's latent tokens [nTarget, 128]
	lat     gpu.Tensor // the same unpacked [128, gh, gw]
	vel     gpu.Tensor // the transformer's output [nTotal, 128]
	unc     gpu.Tensor // the unconditional output (CFG only)
	host    []float32  // lat read back after every step
	bl      *blend     // inpainting only
	blocks  int
	passes  int
	nTarget int
}

// blend is the inpainting state of the sampler (Flux2KleinInpaintPipeline): the image's
// packed latents, the packed noise and the token mask (1 = repaint), with host buffers for
// the per-step blend of the latents with the re-noised original.
type blend struct {
	image, noise, mask []float32
	x, scratch         []float32
}

// sample is the sampler stage: the initial noise (torch-compatible, or the request's
// latents), then per step the transformer (a second, unconditional pass with CFG, blended
// by the guidance scale) and an Euler step along the schedule. When inpainting (mask is
// the token mask, the image's latents are the first reference's rows of img), the run
// starts at step p.TStart from the image latents noised to that step, and after every
// step the kept region is blended back (inpaint.BlendStep). It returns the final latents
// unpacked on the backend [128, gh, gw] and their checked copy on the host.
func (m *Model) sample(ctx context.Context, r *run, p Plan, sc sched.Schedule, text textInput, img gpu.Tensor, ids []int64, mask []float32, ts *gpu.Held) (gpu.Tensor, []float32, error) {
	s, err := m.newSampler(r, p, sc, text, img, ids, mask, ts)
	if err != nil {
		return gpu.Tensor{}, nil, err
	}
	for i := 0; i < p.StepsRun(); i++ {
		if err := m.step(ctx, r, s, i); err != nil {
			return gpu.Tensor{}, nil, err
		}
	}
	r.endPhase(PhaseDenoise)
	return s.lat, s.host, nil
}

// newSampler makes the initial latents x (and lat) and the transformer's outputs.
func (m *Model) newSampler(r *run, p Plan, sc sched.Schedule, text textInput, img gpu.Tensor, ids []int64, mask []float32, ts *gpu.Held) (*sampler, error) {
	gw, gh := p.Grid()
	s := &sampler{p: p, sc: sc, text: text, img: img, ids: ids, txtIDs: flux2.TextIDs(text.n), nTarget: gw * gh, blocks: m.flux.Config().Blocks(), passes: 1}
	nTotal := s.nTarget + p.RefTokens()
	// Initial noise [128, gh, gw] (NCHW without batch), of the request's kind, packed to
	// tokens x [nTarget, 128] on the backend. lat holds the unpacked latents from then on.
	latents := p.Request.Latents
	if latents == nil {
		var err error
		if latents, err = InitialNoise(p.Request.Noise, p.Request.Seed, latentChannels, gw, gh); err != nil {
			return nil, err
		}
	}
	if p.Inpaint {
		var err error
		if latents, err = m.startInpaint(s, r, latents, mask); err != nil {
			return nil, err
		}
	}
	if err := r.dump("latents_init", []int{1, latentChannels, gh, gw}, latents); err != nil {
		return nil, err
	}
	var err error
	if s.lat, err = upload(ts, "initial latents", latents, latentChannels, gh, gw); err != nil {
		return nil, err
	}
	if s.x, err = alloc(ts, "latent tokens", s.nTarget, latentChannels); err != nil {
		return nil, err
	}
	m.b.Transpose(s.x, s.lat, latentChannels, s.nTarget)
	if s.vel, err = alloc(ts, "velocity", nTotal, latentChannels); err != nil {
		return nil, err
	}
	if p.CFG {
		if s.unc, err = alloc(ts, "unconditional velocity", nTotal, latentChannels); err != nil {
			return nil, err
		}
		s.passes = 2
	}
	// The host reads the latents back after every step (128·tokens values: small next to
	// a step's work) to check them and draw the preview.
	s.host = make([]float32, latentChannels*s.nTarget)
	return s, nil
}

// startInpaint sets up the blend and returns the start latents [128, gh, gw]: the image
// latents (read back from the first reference's rows) noised to sigma[TStart] with the
// noise [128, gh, gw] (inpaint.ScaleNoise).
func (m *Model) startInpaint(s *sampler, r *run, noise, mask []float32) ([]float32, error) {
	n := s.nTarget
	if len(mask) != n {
		return nil, fmt.Errorf("inpainting mask has %d token weights, want %d", len(mask), n)
	}
	image, err := gpu.ToHost(m.b, s.img.Rows(n, 2*n, latentChannels))
	if err != nil {
		return nil, fmt.Errorf("read image latents: %w", err)
	}
	if err := r.dump("image_latents_packed", []int{1, n, latentChannels}, image); err != nil {
		return nil, err
	}
	s.bl = &blend{image: image, noise: inpaint.Pack(noise), mask: mask, x: make([]float32, len(image)), scratch: make([]float32, len(image))}
	start := make([]float32, len(image))
	if err := inpaint.ScaleNoise(start, image, s.bl.noise, s.sc.Sigmas[s.p.TStart]); err != nil {
		return nil, err
	}
	return inpaint.Unpack(start), nil
}

// step runs denoising step i of those run (schedule step TStart + i): the velocity (guided
// with CFG), the Euler update, the inpainting blend, the check of the new latents, their
// dump and the preview.
func (m *Model) step(ctx context.Context, r *run, s *sampler, i int) error {
	p, n := s.p, s.nTarget
	k, steps := p.TStart+i, p.StepsRun()
	m.b.Copy(s.img.Rows(0, n, latentChannels), s.x)
	in := flux2.Input{Img: s.img, ImgIDs: s.ids, Txt: s.text.txt, TxtIDs: s.txtIDs, Timestep: s.sc.TimestepPassed(k)}
	blockProgress := func(pass int) func(b, total int) {
		return func(b, total int) {
			r.report(Progress{Phase: PhaseDenoise, Step: i + 1, Steps: steps, Block: pass*s.blocks + b, Blocks: s.passes * s.blocks})
		}
	}
	if err := m.flux.Forward(ctx, in, s.vel, blockProgress(0)); err != nil {
		return fmt.Errorf("denoising step %d: %w", i+1, err)
	}
	v := s.vel.Rows(0, n, latentChannels)
	if p.CFG {
		in.Txt = s.text.neg
		if err := m.flux.Forward(ctx, in, s.unc, blockProgress(1)); err != nil {
			return fmt.Errorf("denoising step %d (unconditional): %w", i+1, err)
		}
		m.b.Guidance(v, s.unc.Rows(0, n, latentChannels), float32(p.Guidance))
	}
	// Euler: x += (σ' − σ)·v, the difference in float32 as the reference scheduler.
	m.b.AddScaled(s.x, v, s.sc.Sigmas[k+1]-s.sc.Sigmas[k])
	if s.bl != nil {
		if err := m.blendStep(s, i); err != nil {
			return fmt.Errorf("denoising step %d: %w", i+1, err)
		}
	}
	m.b.Transpose(s.lat, s.x, n, latentChannels)
	if err := m.b.Read(s.host, s.lat); err != nil {
		return fmt.Errorf("denoising step %d: %w", i+1, err)
	}
	if j := firstNonFinite(s.host); j >= 0 {
		return fmt.Errorf("denoising step %d produced non-finite latents (%s) — %s; %s", i+1, nonFiniteName(float64(s.host[j])), nonFiniteCause(p, s.text, i+1), corruptHint)
	}
	gw, gh := p.Grid()
	if err := r.dump(fmt.Sprintf("latents_step%d", i), []int{1, latentChannels, gh, gw}, s.host); err != nil {
		return err
	}
	done := Progress{Phase: PhaseDenoise, Step: i + 1, Steps: steps, Block: s.passes * s.blocks, Blocks: s.passes * s.blocks}
	if r.progress != nil {
		done.Preview = m.preview(s.host, gh, gw)
	}
	r.report(done)
	return nil
}

// blendStep blends the kept region of the latent tokens x back after step i: x is read
// back, blended with the image latents re-noised to the next sigma (the clean ones after
// the last step) on the host, bit for bit as the pipeline, and uploaded again.
func (m *Model) blendStep(s *sampler, i int) error {
	bl := s.bl
	if err := m.b.Read(bl.x, s.x); err != nil {
		return err
	}
	if err := inpaint.BlendStep(bl.x, bl.image, bl.noise, bl.mask, bl.scratch, s.sc.Sigmas, s.p.TStart, i); err != nil {
		return err
	}
	m.b.Upload(s.x, bl.x)
	return nil
}
