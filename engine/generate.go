package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"kleinbild/engine/flux2"
	"kleinbild/engine/imageio"
	"kleinbild/engine/torchrand"
	"kleinbild/engine/vae"
	"kleinbild/gpu"
)

// latentChannels is the transformer's token width: 32 VAE channels patchified 2×2.
const latentChannels = 128

// tensors allocates F32 tensors on a backend and frees them all at once.
type tensors struct {
	b   gpu.Backend
	all []gpu.Tensor
}

func (ts *tensors) alloc(what string, shape ...int) (gpu.Tensor, error) {
	t, err := ts.b.Alloc(gpu.F32, shape...)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("allocate %s %v: %w", what, shape, err)
	}
	ts.all = append(ts.all, t)
	return t, nil
}

func (ts *tensors) upload(what string, data []float32, shape ...int) (gpu.Tensor, error) {
	t, err := gpu.FromHost(ts.b, data, shape...)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("upload %s %v: %w", what, shape, err)
	}
	ts.all = append(ts.all, t)
	return t, nil
}

// own adds a tensor made elsewhere (by the VAE) to the set.
func (ts *tensors) own(t gpu.Tensor) { ts.all = append(ts.all, t) }

// free waits for the queued work (whose error, if any, the caller has already met or no
// longer needs) and frees every tensor.
func (ts *tensors) free() {
	_ = ts.b.Sync()
	for _, t := range ts.all {
		ts.b.Free(t)
	}
	ts.all = nil
}

// generate runs one request for Generate (weightwatch.go), which watches the weight files.
// progress (may be nil) is called from the generating goroutine.
// The context is checked before every transformer block, so cancellation is prompt. All
// tensor math runs on the model's backend; the host reads the latents back once per step
// (for the preview) and the image at the end.
func (m *Model) generate(ctx context.Context, req Request, progress func(Progress)) (*Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	start := time.Now()
	timings := map[Phase]time.Duration{}
	report := func(p Progress) {
		if progress != nil {
			p.Elapsed = time.Since(start)
			progress(p)
		}
	}
	phaseStart := start
	endPhase := func(p Phase) {
		now := time.Now()
		timings[p] += now.Sub(phaseStart)
		phaseStart = now
	}
	dump := func(name string, shape []int, data []float32) error {
		if req.Dump == nil {
			return nil
		}
		if err := req.Dump(name, shape, data); err != nil {
			return fmt.Errorf("dump %s: %w", name, err)
		}
		return nil
	}

	if len(req.References) > MaxReferences {
		return nil, fmt.Errorf("%d reference images given: at most %d are supported", len(req.References), MaxReferences)
	}
	steps := req.Steps
	if steps == 0 {
		steps = m.info.DefaultSteps
	}
	if steps < 1 || steps > MaxSteps {
		return nil, fmt.Errorf("steps %d out of range 1..%d", steps, MaxSteps)
	}
	if err := ValidateGuidance(req.Guidance); err != nil {
		return nil, err
	}
	if err := ValidatePrompt(req.Prompt); err != nil {
		return nil, err
	}
	guidance := req.Guidance
	if guidance == 0 {
		guidance = m.info.DefaultGuidance
	}
	useCFG := !m.info.Distilled && guidance > 1
	schedule := req.Schedule
	if schedule == "" {
		schedule = "flow"
	}

	// Reference images: load and preprocess first so that a bad file fails fast.
	report(Progress{Phase: PhaseLoading})
	type prepared struct {
		pix  []float32
		w, h int
	}
	var preps []prepared
	for i, path := range req.References {
		img, err := imageio.LoadReference(path)
		if err != nil {
			return nil, fmt.Errorf("reference %d: %w", i+1, err)
		}
		pix, w, h, err := imageio.Preprocess(img)
		if err != nil {
			return nil, fmt.Errorf("reference %d (%s): %w", i+1, path, err)
		}
		preps = append(preps, prepared{pix, w, h})
	}

	// Output size: given, else the first reference's, else DefaultSizePx.
	width, height := req.WidthPx, req.HeightPx
	if width == 0 && len(preps) > 0 {
		width = preps[0].w
	}
	if height == 0 && len(preps) > 0 {
		height = preps[0].h
	}
	if width == 0 {
		width = DefaultSizePx
	}
	if height == 0 {
		height = DefaultSizePx
	}
	var err error
	if width, err = ValidateSize("width", width); err != nil {
		return nil, err
	}
	if height, err = ValidateSize("height", height); err != nil {
		return nil, err
	}
	gw, gh := width/16, height/16 // latent token grid
	nTarget := gw * gh
	if req.Latents != nil && len(req.Latents) != latentChannels*nTarget {
		return nil, fmt.Errorf("initial latents have %d values, want 128×%d×%d = %d for %d×%d px", len(req.Latents), gh, gw, latentChannels*nTarget, width, height)
	}
	if err := CheckFinite("initial latents", req.Latents); err != nil {
		return nil, err
	}
	sc, err := m.info.Scheduler.ByName(schedule, steps, nTarget)
	if err != nil {
		return nil, err
	}
	endPhase(PhaseLoading)

	// Text.
	report(Progress{Phase: PhaseEncoding})
	embeds := req.PromptEmbeds
	if err := CheckFinite("prompt embeddings", embeds); err != nil {
		return nil, err
	}
	if embeds == nil {
		embeds, err = m.encodePrompt(ctx, req.Prompt, func(done, total int) {
			report(Progress{Phase: PhaseEncoding, Block: done, Blocks: total})
		})
		if err != nil {
			return nil, err
		}
	}
	var negEmbeds []float32
	if useCFG {
		if negEmbeds, err = m.encodePrompt(ctx, "", nil); err != nil {
			return nil, err
		}
	}
	fc := m.flux.Config()
	txtDim := fc.JointAttentionDim
	txtLen := len(embeds) / txtDim
	if txtLen*txtDim != len(embeds) || txtLen == 0 {
		return nil, fmt.Errorf("prompt embeddings have %d values, not a multiple of the transformer's text width %d", len(embeds), txtDim)
	}
	if useCFG && len(negEmbeds) != len(embeds) {
		return nil, fmt.Errorf("negative prompt embeddings have %d values, want %d like the prompt's", len(negEmbeds), len(embeds))
	}
	if err := dump("prompt_embeds", []int{1, txtLen, txtDim}, embeds); err != nil {
		return nil, err
	}
	if !m.opts.KeepEncoder && m.enc != nil {
		// The encoder's pages are not needed while denoising: drop them from this process
		// (they stay in the page cache, so a new prompt maps them back cheaply), and unmap
		// the encoder entirely when RAM is short.
		m.enc.Release()
		if memoryShort(m.info) {
			m.releaseEncoder()
		}
	}

	// Every tensor of this generation, freed on return (errors and cancellation included).
	ts := &tensors{b: m.b}
	defer ts.free()
	txt, err := ts.upload("prompt embeddings", embeds, txtLen, txtDim)
	if err != nil {
		return nil, err
	}
	var negTxt gpu.Tensor
	if useCFG {
		if negTxt, err = ts.upload("negative prompt embeddings", negEmbeds, txtLen, txtDim); err != nil {
			return nil, err
		}
	}
	endPhase(PhaseEncoding)

	// Joint image sequence: target tokens, then reference tokens.
	nTotal := nTarget
	for _, p := range preps {
		nTotal += (p.h / 16) * (p.w / 16)
	}
	img, err := ts.alloc("image tokens", nTotal, latentChannels)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, nTotal*4)
	ids = append(ids, flux2.ImageIDs(gh, gw, 0)...)

	// References through the VAE encoder, packed straight into their rows of img.
	off := nTarget
	for i, p := range preps {
		report(Progress{Phase: PhaseRefs, Step: i + 1, Steps: len(preps)})
		rh, rw := p.h/16, p.w/16
		if err := m.encodeReference(ctx, p.pix, p.h, p.w, img.Rows(off, off+rh*rw, latentChannels)); err != nil {
			return nil, fmt.Errorf("encode reference %d: %w", i+1, err)
		}
		ids = append(ids, flux2.ImageIDs(rh, rw, int64(10+10*i))...)
		off += rh * rw
	}
	if len(preps) > 0 {
		endPhase(PhaseRefs)
	}

	// Initial noise [128, gh, gw] (NCHW without batch), torch-compatible, packed to tokens
	// x [nTarget, 128] on the backend. lat holds the unpacked latents from then on.
	latents := req.Latents
	if latents == nil {
		latents = torchrand.New(req.Seed).Randn(latentChannels * nTarget)
	}
	if err := dump("latents_init", []int{1, latentChannels, gh, gw}, latents); err != nil {
		return nil, err
	}
	lat, err := ts.upload("initial latents", latents, latentChannels, gh, gw)
	if err != nil {
		return nil, err
	}
	x, err := ts.alloc("latent tokens", nTarget, latentChannels)
	if err != nil {
		return nil, err
	}
	m.b.Transpose(x, lat, latentChannels, nTarget)

	vel, err := ts.alloc("velocity", nTotal, latentChannels)
	if err != nil {
		return nil, err
	}
	var unc gpu.Tensor
	if useCFG {
		if unc, err = ts.alloc("unconditional velocity", nTotal, latentChannels); err != nil {
			return nil, err
		}
	}
	txtIDs := flux2.TextIDs(txtLen)
	blocks := fc.Blocks()
	passes := 1
	if useCFG {
		passes = 2
	}
	// The host reads the latents back after every step (128·tokens values: small next to
	// a step's work) to check them and draw the preview.
	host := make([]float32, latentChannels*nTarget)

	for i := 0; i < steps; i++ {
		m.b.Copy(img.Rows(0, nTarget, latentChannels), x)
		in := flux2.Input{Img: img, ImgIDs: ids, Txt: txt, TxtIDs: txtIDs, Timestep: sc.TimestepPassed(i)}
		blockProgress := func(pass int) func(b, total int) {
			return func(b, total int) {
				report(Progress{Phase: PhaseDenoise, Step: i + 1, Steps: steps, Block: pass*blocks + b, Blocks: passes * blocks})
			}
		}
		if err := m.flux.Forward(ctx, in, vel, blockProgress(0)); err != nil {
			return nil, fmt.Errorf("denoising step %d: %w", i+1, err)
		}
		v := vel.Rows(0, nTarget, latentChannels)
		if useCFG {
			in.Txt = negTxt
			if err := m.flux.Forward(ctx, in, unc, blockProgress(1)); err != nil {
				return nil, fmt.Errorf("denoising step %d (unconditional): %w", i+1, err)
			}
			m.b.Guidance(v, unc.Rows(0, nTarget, latentChannels), float32(guidance))
		}
		// Euler: x += (σ' − σ)·v, the difference in float32 as the reference scheduler.
		m.b.AddScaled(x, v, sc.Sigmas[i+1]-sc.Sigmas[i])
		m.b.Transpose(lat, x, nTarget, latentChannels)
		if err := m.b.Read(host, lat); err != nil {
			return nil, fmt.Errorf("denoising step %d: %w", i+1, err)
		}
		if j := firstNonFinite(host); j >= 0 {
			return nil, fmt.Errorf("denoising step %d produced non-finite latents (%s) — the transformer weights may be corrupt; %s", i+1, nonFiniteName(float64(host[j])), corruptHint)
		}
		if err := dump(fmt.Sprintf("latents_step%d", i), []int{1, latentChannels, gh, gw}, host); err != nil {
			return nil, err
		}
		p := Progress{Phase: PhaseDenoise, Step: i + 1, Steps: steps, Block: passes * blocks, Blocks: passes * blocks}
		if progress != nil {
			p.Preview = m.preview(host, gh, gw)
		}
		report(p)
	}
	endPhase(PhaseDenoise)

	// Decode: lat holds the final unpacked latents, host their checked copy.
	report(Progress{Phase: PhaseDecoding})
	final := host
	if err := dump("latents_final", []int{1, latentChannels, gh, gw}, final); err != nil {
		return nil, err
	}
	den, err := ts.alloc("denormalised latents", latentChannels, gh, gw)
	if err != nil {
		return nil, err
	}
	m.vae.Denormalize(den, lat, gh, gw)
	z, err := ts.alloc("VAE latents", latentChannels/4, 2*gh, 2*gw)
	if err != nil {
		return nil, err
	}
	m.b.Unpatchify(z, den, latentChannels, gh, gw)
	pixT, err := m.vae.DecodeTensor(ctx, z, 2*gh, 2*gw, func(done, total int) {
		report(Progress{Phase: PhaseDecoding, Block: done, Blocks: total})
	})
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	ts.own(pixT)
	pix, err := gpu.ToHost(m.b, pixT)
	if err != nil {
		return nil, fmt.Errorf("decode: read image: %w", err)
	}
	if j := firstNonFinite(pix); j >= 0 {
		return nil, fmt.Errorf("decode: the VAE decoder produced non-finite pixels (%s) — the VAE weights may be corrupt; %s", nonFiniteName(float64(pix[j])), corruptHint)
	}
	if err := dump("image", []int{1, 3, height, width}, pix); err != nil {
		return nil, err
	}
	endPhase(PhaseDecoding)
	res := &Result{
		Image:   vae.ToRGB(pix, height, width),
		Seed:    req.Seed,
		WidthPx: width, HeightPx: height,
		Steps: steps, Guidance: guidance, Schedule: schedule,
		Timings: timings,
		Latents: final,
	}
	if !useCFG {
		res.Guidance = 1
	}
	report(Progress{Phase: PhaseDone, Step: steps, Steps: steps})
	return res, nil
}

// encodeReference runs a preprocessed reference image pix [3, h, w] through the VAE
// encoder and writes its packed, normalised tokens [(h/16)·(w/16), 128] into dst.
func (m *Model) encodeReference(ctx context.Context, pix []float32, h, w int, dst gpu.Tensor) error {
	ts := &tensors{b: m.b}
	defer ts.free()
	in, err := ts.upload("reference image", pix, 3, h, w)
	if err != nil {
		return err
	}
	lat, err := m.vae.EncodeTensor(ctx, in, h, w, nil) // [32, h/8, w/8]
	if err != nil {
		return err
	}
	ts.own(lat)
	rh, rw := h/16, w/16
	patch, err := ts.alloc("patchified reference latents", latentChannels, rh, rw)
	if err != nil {
		return err
	}
	m.b.Patchify(patch, lat, latentChannels/4, h/8, w/8)
	norm, err := ts.alloc("normalised reference latents", latentChannels, rh, rw)
	if err != nil {
		return err
	}
	m.vae.Normalize(norm, patch, rh, rw)
	host, err := gpu.ToHost(m.b, norm) // 128·tokens values, read before the deferred free
	if err != nil {
		return err
	}
	if j := firstNonFinite(host); j >= 0 {
		return fmt.Errorf("the VAE encoder produced non-finite latents (%s) — the VAE weights may be corrupt; %s", nonFiniteName(float64(host[j])), corruptHint)
	}
	m.b.Transpose(dst, norm, latentChannels, rh*rw)
	return m.b.Sync() // before the deferred free, so that no error of this work is lost
}

// memoryShort reports whether available RAM is too small to keep the text encoder mapped
// next to the transformer during denoising (the pages would be evicted anyway; releasing
// them first avoids thrashing).
func memoryShort(info ModelInfo) bool {
	avail, ok := AvailableRAM()
	if !ok {
		return false
	}
	return avail < uint64(info.WeightBytes)+2<<30
}

// clampUnit maps v to [0, 1] with a fixed contrast for previews.
func clampUnit(v float32) float32 {
	return float32(math.Max(0, math.Min(1, float64(v))))
}
