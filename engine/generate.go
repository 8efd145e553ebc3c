package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"kleinbild/engine/flux2"
	"kleinbild/engine/imageio"
	"kleinbild/engine/sched"
	"kleinbild/engine/torchrand"
	"kleinbild/engine/vae"
)

// latentChannels is the transformer's token width: 32 VAE channels patchified 2×2.
const latentChannels = 128

// reference is one preprocessed, encoded reference image.
type reference struct {
	tokens []float32 // packed [h·w, 128], bn-normalised
	ids    []int64   // [h·w·4]
	w, h   int       // latent grid (pixels / 16)
}

// Generate runs one request. progress (may be nil) is called from the generating goroutine.
// The context is checked before every transformer block, so cancellation is prompt.
func (m *Model) Generate(ctx context.Context, req Request, progress func(Progress)) (*Result, error) {
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
	if steps < 1 || steps > 200 {
		return nil, fmt.Errorf("steps %d out of range 1..200", steps)
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
		img, err := imageio.Load(path)
		if err != nil {
			return nil, fmt.Errorf("reference %d: %w", i+1, err)
		}
		pix, w, h, err := imageio.Preprocess(img)
		if err != nil {
			return nil, fmt.Errorf("reference %d (%s): %w", i+1, path, err)
		}
		preps = append(preps, prepared{pix, w, h})
	}

	// Output size: given, else the first reference's, else 256².
	width, height := req.WidthPx, req.HeightPx
	if width == 0 && len(preps) > 0 {
		width = preps[0].w
	}
	if height == 0 && len(preps) > 0 {
		height = preps[0].h
	}
	if width == 0 {
		width = 256
	}
	if height == 0 {
		height = 256
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
	endPhase(PhaseLoading)

	// Text.
	report(Progress{Phase: PhaseEncoding})
	embeds := req.PromptEmbeds
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
	txtLen := len(embeds) / m.flux.Config().JointAttentionDim
	if txtLen*m.flux.Config().JointAttentionDim != len(embeds) || txtLen == 0 {
		return nil, fmt.Errorf("prompt embeddings have %d values, not a multiple of the transformer's text width %d", len(embeds), m.flux.Config().JointAttentionDim)
	}
	if err := dump("prompt_embeds", []int{1, txtLen, m.flux.Config().JointAttentionDim}, embeds); err != nil {
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
	endPhase(PhaseEncoding)

	// References through the VAE encoder.
	var refs []reference
	for i, p := range preps {
		report(Progress{Phase: PhaseRefs, Step: i + 1, Steps: len(preps)})
		lat, err := m.vae.Encode(ctx, p.pix, p.h, p.w, nil)
		if err != nil {
			return nil, fmt.Errorf("encode reference %d: %w", i+1, err)
		}
		rh, rw := p.h/16, p.w/16
		patch := vae.Patchify(lat, 32, p.h/8, p.w/8)
		m.vae.Normalize(patch, rh, rw)
		refs = append(refs, reference{
			tokens: vae.Pack(patch, latentChannels, rh, rw),
			ids:    flux2.ImageIDs(rh, rw, int64(10+10*i)),
			w:      rw, h: rh,
		})
	}
	if len(preps) > 0 {
		endPhase(PhaseRefs)
	}

	// Initial noise [128, gh, gw] (NCHW without batch), torch-compatible.
	latents := req.Latents
	if latents == nil {
		latents = torchrand.New(req.Seed).Randn(latentChannels * gh * gw)
	} else if len(latents) != latentChannels*gh*gw {
		return nil, fmt.Errorf("initial latents have %d values, want 128×%d×%d = %d for %d×%d px", len(latents), gh, gw, latentChannels*gh*gw, width, height)
	}
	if err := dump("latents_init", []int{1, latentChannels, gh, gw}, latents); err != nil {
		return nil, err
	}
	x := vae.Pack(latents, latentChannels, gh, gw) // [nTarget, 128]

	sc, err := sched.ByName(schedule, steps, nTarget)
	if err != nil {
		return nil, err
	}

	// Joint image sequence: target tokens then reference tokens.
	nTotal := nTarget
	for _, r := range refs {
		nTotal += len(r.tokens) / latentChannels
	}
	img := make([]float32, nTotal*latentChannels)
	ids := make([]int64, 0, nTotal*4)
	ids = append(ids, flux2.ImageIDs(gh, gw, 0)...)
	off := nTarget * latentChannels
	for _, r := range refs {
		copy(img[off:], r.tokens)
		off += len(r.tokens)
		ids = append(ids, r.ids...)
	}
	txtIDs := flux2.TextIDs(txtLen)
	blocks := m.flux.Config().NumLayers + m.flux.Config().NumSingleLayers
	passes := 1
	if useCFG {
		passes = 2
	}

	for i := 0; i < steps; i++ {
		copy(img, x)
		in := flux2.Input{Img: img, ImgIDs: ids, Txt: embeds, TxtIDs: txtIDs, Timestep: sc.TimestepPassed(i)}
		blockProgress := func(pass int) func(b, total int) {
			return func(b, total int) {
				report(Progress{Phase: PhaseDenoise, Step: i + 1, Steps: steps, Block: pass*blocks + b, Blocks: passes * blocks})
			}
		}
		out, err := m.flux.Forward(ctx, in, blockProgress(0))
		if err != nil {
			return nil, fmt.Errorf("denoising step %d: %w", i+1, err)
		}
		v := out[:nTarget*latentChannels]
		if useCFG {
			in.Txt = negEmbeds
			unc, err := m.flux.Forward(ctx, in, blockProgress(1))
			if err != nil {
				return nil, fmt.Errorf("denoising step %d (unconditional): %w", i+1, err)
			}
			g := float32(guidance)
			for j := range v {
				u := unc[j]
				v[j] = u + g*(v[j]-u)
			}
		}
		sched.EulerStep(x, v, sc.Sigmas[i], sc.Sigmas[i+1])
		nchw := vae.Unpack(x, latentChannels, gh, gw)
		if err := dump(fmt.Sprintf("latents_step%d", i), []int{1, latentChannels, gh, gw}, nchw); err != nil {
			return nil, err
		}
		report(Progress{Phase: PhaseDenoise, Step: i + 1, Steps: steps, Block: passes * blocks, Blocks: passes * blocks, Preview: m.preview(nchw, gh, gw)})
	}
	endPhase(PhaseDenoise)

	// Decode.
	report(Progress{Phase: PhaseDecoding})
	final := vae.Unpack(x, latentChannels, gh, gw)
	if err := dump("latents_final", []int{1, latentChannels, gh, gw}, final); err != nil {
		return nil, err
	}
	den := append([]float32(nil), final...)
	m.vae.Denormalize(den, gh, gw)
	lat := vae.Unpatchify(den, latentChannels, gh, gw) // [32, 2gh, 2gw]
	pix, err := m.vae.Decode(ctx, lat, 2*gh, 2*gw, func(done, total int) {
		report(Progress{Phase: PhaseDecoding, Block: done, Blocks: total})
	})
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
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
