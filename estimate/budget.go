package estimate

import (
	"fmt"
	"image"
	"strings"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
	"kleinbild/engine/lora"
	"kleinbild/internal/sysmem"
)

// Reserve is the memory counted for everything besides the model's big buffers: the Go
// runtime and its garbage-collection slack, the tokenizer, cached prompt embeddings, the
// user interface and images.
const Reserve = 640 << 20

// Request describes a planned generation: the engine's request and what the estimate
// needs besides.
type Request struct {
	// Req is the generation as the engine runs it. Its size, steps, guidance (base
	// models: above 1 every step runs the transformer twice), reference count and
	// adapters (their factors add to the memory, lora.Adapter.Bytes, and their products to
	// every transformer and text-encoder pass, lora.Stack.FLOPsPerToken) are priced; its
	// references are not read. An inpainting request (Req.Image) is priced by PictureSize;
	// its picture is not read either.
	Req engine.Request
	// PictureSize is the size in pixels of an inpainting request's picture (before any
	// outpainting). Known, the request is priced as the pipeline runs it: at the result's
	// size (inpaint.OutputSize of the canvas), with the picture's conditioning tokens and
	// only the steps its strength runs. Unknown (zero), it is priced at Req's own size,
	// every step, without the picture. With a mask crop the result is the crop's, at most
	// this size.
	PictureSize image.Point
	// RefSizes are the sizes of the references after preprocessing when known, else each
	// is assumed to be the output size (resized like the pipeline does:
	// imageio.TargetSize). More sizes than Req.References count as more references.
	RefSizes []image.Point
	// PromptCached skips the text encoder (the prompt's embedding is in the cache).
	PromptCached bool
	// KeepEncoder mirrors engine.Options.KeepEncoder: the text encoder stays mapped even
	// when memory is short.
	KeepEncoder bool
	// Load adds the time to load the model (Model.LoadSeconds) to the estimate: the model is
	// not loaded yet (the first run, or another model or device).
	Load bool
	// Count is the number of images of the job (0 means 1), the seeds of one prompt: the
	// model is loaded and the prompt encoded once, the references are encoded and every
	// image denoised and decoded for each (Phases.Job). Report.Seconds covers them all.
	Count int
}

// Machine is the memory and speed an estimate is made for.
type Machine struct {
	// AvailableBytes is what new allocations can take without swapping (0: unknown);
	// TotalBytes the physical memory (0: unknown).
	AvailableBytes, TotalBytes uint64
	// Rates are the calibrated kernel speeds; without them no time is estimated.
	Rates Calibration
}

// ThisMachine reads the current memory figures (sysmem.AvailableRAM, sysmem.TotalRAM).
func ThisMachine(rates Calibration) Machine {
	m := Machine{Rates: rates}
	if v, ok := sysmem.AvailableRAM(); ok {
		m.AvailableBytes = v
	}
	if v, ok := sysmem.TotalRAM(); ok {
		m.TotalBytes = v
	}
	return m
}

// Verdict is the plain answer of an estimate.
type Verdict string

// The verdicts, best first.
const (
	Fits       Verdict = "fits"
	Tight      Verdict = "tight"
	DoesNotFit Verdict = "does not fit"
	Unknown    Verdict = "unknown" // the available memory could not be read
)

// Memory itemises the bytes an estimate is built from.
type Memory struct {
	// Weights touched by a generation: all of the transformer and VAE, the text encoder's
	// layers that run (not its whole file).
	TransformerWeights, VAEWeights, EncoderWeights int64
	// TransformerScratch is the transformer's activation buffer (kept between steps and
	// generations) plus kernel tiles; EncoderScratch the text encoder's activations;
	// DecodeScratch the VAE decoder's buffers (three of the largest activation: at 1024²
	// px 3 × 1 GiB); RefScratch the VAE encoder's for the largest reference.
	TransformerScratch, EncoderScratch, DecodeScratch, RefScratch int64
	// Reserve is the fixed allowance for everything else.
	Reserve int64
	// AdapterWeights are the adapters' factors (float32), resident next to the weights.
	AdapterWeights int64
}

// Phases holds one number per phase of a generation.
type Phases struct {
	// Load is reading the model's weights (Request.Load; no FLOPs).
	Load                                float64
	Encode, References, Denoise, Decode float64
}

// Total is the sum over the phases.
func (p Phases) Total() float64 {
	return p.Load + p.Encode + p.References + p.Denoise + p.Decode
}

// Job is the time of a job of count images (at least 1) from one image's phases: the load
// and the prompt's encoding once, the references, denoising and decoding for every image
// (the engine encodes the references anew for each seed; the prompt's embedding is cached).
func (p Phases) Job(count int) float64 {
	return p.Load + p.Encode + float64(max(count, 1))*(p.References+p.Denoise+p.Decode)
}

// Report is the answer of Estimate for one model, request and machine.
type Report struct {
	Verdict Verdict
	// Message explains the verdict in plain words, with the numbers that matter.
	Message string
	// OverDeviceLimits is set (by the front end, with CheckDevice) when a buffer of the
	// request exceeds the GPU's limits: the run would fail in its first step, so it must
	// not start on that device, even if the user agrees.
	OverDeviceLimits bool

	// PeakBytes is the memory to keep everything resident: the weights a generation touches
	// (transformer, VAE, and the text encoder's running layers unless the prompt is cached)
	// plus ActivationBytes. At or below AvailableBytes (and with the text encoder kept),
	// nothing is re-read from disk after the first generation.
	PeakBytes int64
	// WorkingSetBytes is the largest single phase: its weights plus the activations alive
	// then. At or below AvailableBytes each phase runs from memory, weights being paged in
	// from disk between phases.
	WorkingSetBytes int64
	// ActivationBytes is the most allocated (non-file) memory at once, Reserve included.
	// Above AvailableBytes the system swaps or kills the process.
	ActivationBytes int64
	// EncoderReleased is true when the engine will unmap the text encoder after encoding
	// (memory short and KeepEncoder false): new prompts re-read it from disk.
	EncoderReleased bool
	// ReadBytes estimates what one generation with a new prompt re-reads from disk in the
	// steady state (weights evicted for lack of memory); 0 when everything stays resident.
	// The first generation after start reads all weights once regardless.
	ReadBytes int64
	// reads are ReadBytes by the phase that re-reads them; their time, at the calibrated
	// read rate, is in PhaseSeconds (issue 36 item 9: a tight 1024×576 image was estimated
	// at 21 s and took 46–48 s, its re-reads unpriced).
	reads          Phases
	AvailableBytes int64
	TotalBytes     int64
	Memory         Memory

	// Tokens is the transformer's sequence length: 512 text + image + reference tokens.
	Tokens, ImageTokens, RefTokens int
	// Steps and Passes (2 with guidance) are the transformer calls: Steps × Passes.
	Steps, Passes int

	// FLOPs and Seconds per phase of one image; Seconds is the whole job's time
	// (PhaseSeconds.Job of Request.Count; 0 without calibration).
	FLOPs        Phases
	PhaseSeconds Phases
	Seconds      float64
	// RunCalibrated is true when measured runs of this model on this machine corrected the
	// times (Calibration.WithRun); else they come from the kernel rates alone.
	RunCalibrated bool
}

// Estimate predicts memory and time of a generation of m at the requested size on mc.
func Estimate(m Model, req Request, mc Machine) (Report, error) {
	p, err := plan(m, req)
	if err != nil {
		return Report{}, err
	}
	w, h, refs := p.WidthPx, p.HeightPx, p.Refs
	e := Report{AvailableBytes: int64(mc.AvailableBytes), TotalBytes: int64(mc.TotalBytes)}
	e.Steps = p.StepsRun() // inpainting runs only the last steps
	e.Passes = 1
	if p.CFG {
		e.Passes = 2
	}
	e.ImageTokens = p.ImageTokens()
	e.RefTokens = p.RefTokens()
	e.Tokens = TextTokens + e.ImageTokens + e.RefTokens

	// Memory.
	tc, qc, vc := m.Transformer, m.Encoder, m.VAE
	mem := Memory{
		TransformerWeights: m.transformerBytes(),
		VAEWeights:         m.vaeBytes(),
		EncoderWeights:     m.encoderTouchedBytes(),
		TransformerScratch: transformerScratchBytes(tc, e.Tokens) + transformerKernelBytes(tc, e.Tokens),
		EncoderScratch:     encoderBytes(qc, TextTokens),
		Reserve:            Reserve,
	}
	for _, w := range req.Req.Adapters {
		mem.AdapterWeights += w.Adapter.Bytes()
	}
	nImg := e.ImageTokens + e.RefTokens
	latents := int64(nImg) * int64(tc.InChannels) * f32 * int64(4+e.Passes) // packed tokens, noise, outputs
	mem.TransformerScratch += latents
	dec := vaeDecode(vc, h/vc.ScaleFactor(), w/vc.ScaleFactor())
	mem.DecodeScratch = dec.bytes(3 * int64(w) * int64(h) * 2) // decoded image and its copy
	for _, r := range refs {
		enc := vaeEncode(vc, r.Y, r.X)
		mem.RefScratch = max(mem.RefScratch, enc.bytes(3*int64(r.X)*int64(r.Y)*2))
	}
	e.Memory = mem

	// The transformer's scratch survives between calls, so it overlaps every other phase.
	encPhase := mem.TransformerScratch
	if !req.PromptCached {
		encPhase += mem.EncoderScratch
	}
	activation := max(encPhase, mem.TransformerScratch+mem.RefScratch, mem.TransformerScratch+mem.DecodeScratch)
	e.ActivationBytes = activation + mem.Reserve
	working := max(mem.TransformerWeights, mem.VAEWeights)
	if !req.PromptCached {
		working = max(working, mem.EncoderWeights)
	}
	e.WorkingSetBytes = working + mem.AdapterWeights + e.ActivationBytes

	fileBytes := m.transformerBytes() + m.vaeBytes() + m.encoderFileBytes()
	e.EncoderReleased = !req.KeepEncoder && mc.AvailableBytes > 0 && mc.AvailableBytes < uint64(fileBytes)+2<<30
	e.PeakBytes = mem.TransformerWeights + mem.VAEWeights + mem.AdapterWeights + e.ActivationBytes
	if !req.PromptCached {
		e.PeakBytes += mem.EncoderWeights
	}

	// Time.
	e.FLOPs, e.PhaseSeconds = phases(m, req, refs, w, h, e, mc.Rates)
	if f, ok := mc.Rates.runFactors(m); ok && mc.Rates.Valid() {
		e.PhaseSeconds, e.RunCalibrated = f.apply(e.PhaseSeconds)
	}
	e.Verdict, e.Message = verdict(m, req, &e, w, h)
	if mc.Rates.Valid() {
		e.PhaseSeconds = e.PhaseSeconds.plus(e.reads.scale(1 / mc.Rates.LoadRate()))
	}
	e.Seconds = e.PhaseSeconds.Job(req.Count)
	return e, nil
}

// plus is p and q added phase by phase.
func (p Phases) plus(q Phases) Phases {
	return Phases{Load: p.Load + q.Load, Encode: p.Encode + q.Encode, References: p.References + q.References,
		Denoise: p.Denoise + q.Denoise, Decode: p.Decode + q.Decode}
}

// scale is p with every phase times f.
func (p Phases) scale(f float64) Phases {
	return Phases{Load: p.Load * f, Encode: p.Encode * f, References: p.References * f, Denoise: p.Denoise * f, Decode: p.Decode * f}
}

// phases returns FLOPs and seconds per phase.
func phases(m Model, req Request, refs []image.Point, w, h int, e Report, rates Calibration) (flops, secs Phases) {
	var encode, ref, denoise, decode Work
	if !req.PromptCached {
		encode = encoderWork(m.Encoder, TextTokens)
		encode.Linear += req.Req.Adapters.FLOPsPerToken(lora.TextEncoder) * TextTokens
	}
	for _, r := range refs {
		ref = ref.add(vaeWork(m.VAE.EncodeLayers(r.Y, r.X)))
	}
	step := transformerWork(m.Transformer, TextTokens, e.ImageTokens+e.RefTokens)
	step.Linear += req.Req.Adapters.FLOPsPerToken(lora.Transformer) * float64(TextTokens+e.ImageTokens+e.RefTokens)
	denoise = step.scale(float64(e.Steps * e.Passes))
	decode = vaeWork(m.VAE.DecodeLayers(h/m.VAE.ScaleFactor(), w/m.VAE.ScaleFactor()))
	flops = Phases{Encode: encode.Total(), References: ref.Total(), Denoise: denoise.Total(), Decode: decode.Total()}
	secs = Phases{Encode: encode.Seconds(rates), References: ref.Seconds(rates), Denoise: denoise.Seconds(rates), Decode: decode.Seconds(rates)}
	if req.Load && rates.Valid() {
		secs.Load = m.LoadSeconds(rates)
	}
	return flops, secs
}

// plan is the engine's Plan of req.Req for m (engine.NewPlan: checks, defaults, sizes,
// steps), with the references sized as the pipeline will size them: RefSizes floored to
// multiples of engine.SizeMultiple where given, else as imageio.TargetSize makes a
// reference of the output's size.
func plan(m Model, req Request) (engine.Plan, error) {
	n := max(len(req.Req.References), len(req.RefSizes))
	if engine.ValidateReferences(n) != nil {
		return engine.Plan{}, fmt.Errorf("%d reference images: use 0..%d", n, engine.MaxReferences)
	}
	if err := m.validate(); err != nil {
		return engine.Plan{}, err
	}
	var refs []image.Point
	for i, r := range req.RefSizes {
		w, h := floorSide(r.X), floorSide(r.Y)
		if engine.CheckEngineSize(w) != nil || engine.CheckEngineSize(h) != nil || r.X > engine.EngineMaxSidePx || r.Y > engine.EngineMaxSidePx {
			return engine.Plan{}, fmt.Errorf("reference %d: size %d×%d px out of range %d..%d", i+1, r.X, r.Y, engine.EngineMinSidePx, engine.EngineMaxSidePx)
		}
		refs = append(refs, image.Pt(w, h))
	}
	if pic, ok := pictureRef(req); ok {
		return planInpaint(m, req, pic, refs)
	}
	// The references are counted above and sized here: the plan reads no file.
	p, err := engine.NewPlan(withoutPicture(req.Req), m.Distilled, refs)
	if err != nil {
		return engine.Plan{}, err
	}
	if len(refs) == 0 && n > 0 {
		_, _, rw, rh := imageio.TargetSize(p.WidthPx, p.HeightPx)
		for range n {
			p.Refs = append(p.Refs, image.Pt(rw, rh))
		}
	}
	return p, nil
}

// pictureRef is the prepared size of an inpainting request's picture, the pipeline's first
// conditioning image (engine.Plan.Refs), when req gives its PictureSize.
func pictureRef(req Request) (image.Point, bool) {
	w, h := req.PictureSize.X, req.PictureSize.Y
	if req.Req.Image == "" || w <= 0 || h <= 0 || w > engine.EngineMaxSidePx || h > engine.EngineMaxSidePx {
		return image.Point{}, false
	}
	cw, ch := req.Req.Padding().Size(w, h)
	ow, oh := inpaint.OutputSize(cw, ch)
	if ow <= 0 || oh <= 0 {
		return image.Point{}, false
	}
	return image.Pt(ow, oh), true
}

// planInpaint plans an inpainting request whose picture is prepared to pic: the picture
// first, then the extra reference, if any, at its RefSizes size or else the result's.
func planInpaint(m Model, req Request, pic image.Point, refs []image.Point) (engine.Plan, error) {
	all := []image.Point{pic}
	if len(req.Req.References) > 0 {
		extra := pic
		if len(refs) > 0 {
			extra = refs[0]
		}
		all = append(all, extra)
	}
	return engine.NewPlan(req.Req, m.Distilled, all)
}

// withoutPicture is req without its inpainting settings (Request.Req): the picture's size
// is not known here, so an inpainting request is planned at its own size.
func withoutPicture(req engine.Request) engine.Request {
	if req.Image != "" {
		req.Image, req.Mask, req.Strength, req.MaskCrop, req.RawUnmasked = "", "", 0, 0, false
		req.Outpaint = nil
	}
	return req
}

// gb formats bytes as decimal gigabytes with one decimal.
func gb(n int64) string { return fmt.Sprintf("%.1f GB", float64(n)/1e9) }

// verdict classifies the estimate, sets ReadBytes and explains it.
func verdict(m Model, req Request, e *Report, w, h int) (Verdict, string) {
	avail := e.AvailableBytes
	mem := e.Memory
	enc := mem.EncoderWeights
	if req.PromptCached {
		enc = 0
	}
	size := fmt.Sprintf("%s at %d×%d px", variant(m), w, h)
	needs := fmt.Sprintf("needs about %s with everything in memory (weights %s, buffers %s)", gb(e.PeakBytes), gb(e.PeakBytes-e.ActivationBytes), gb(e.ActivationBytes))
	if avail <= 0 {
		return Unknown, fmt.Sprintf("%s %s; the available memory is unknown.", size, needs)
	}
	hint := ""
	if e.TotalBytes > avail && e.PeakBytes > avail && e.PeakBytes <= e.TotalBytes {
		hint = fmt.Sprintf(" Closing other programs would help: the machine has %s in total.", gb(e.TotalBytes))
	}
	// What stays of the memory for the transformer's pages next to the buffers.
	cached := avail - e.ActivationBytes
	passes := int64(e.Steps * e.Passes)
	switch {
	case cached <= 0:
		return DoesNotFit, fmt.Sprintf("Does not fit: %s needs %s of buffers alone; %s is available. Choose a smaller size.%s",
			size, gb(e.ActivationBytes), gb(avail), hint)
	case cached < mem.TransformerWeights/2:
		return DoesNotFit, fmt.Sprintf("Does not fit: %s %s; %s available leaves %s for the transformer's %s of weights: every step would re-read most of them from disk. Choose a smaller model or size.%s",
			size, needs, gb(avail), gb(cached), gb(mem.TransformerWeights), hint)
	case e.PeakBytes <= avail && (!e.EncoderReleased || enc == 0):
		return Fits, fmt.Sprintf("Fits: %s %s; %s available.", size, needs, gb(avail))
	case mem.TransformerWeights+mem.VAEWeights+e.ActivationBytes <= avail:
		e.ReadBytes = enc
		e.reads = Phases{Encode: float64(enc)}
		return Tight, fmt.Sprintf("Tight: %s %s; %s available. The text encoder (%s) is released after encoding and re-read from disk for each new prompt: slower.%s",
			size, needs, gb(avail), gb(mem.EncoderWeights), hint)
	case e.WorkingSetBytes <= avail:
		e.ReadBytes = enc + mem.TransformerWeights + mem.VAEWeights
		e.reads = Phases{Encode: float64(enc), Denoise: float64(mem.TransformerWeights), Decode: float64(mem.VAEWeights)}
		return Tight, fmt.Sprintf("Tight: %s %s; %s available. Each phase fits on its own: weights are paged from disk between phases (about %s read per image): slower.%s",
			size, needs, gb(avail), gb(e.ReadBytes), hint)
	default:
		e.ReadBytes = enc + mem.VAEWeights + passes*max(mem.TransformerWeights-cached, 0)
		e.reads = Phases{Encode: float64(enc), Denoise: float64(passes * max(mem.TransformerWeights-cached, 0)), Decode: float64(mem.VAEWeights)}
		return Tight, fmt.Sprintf("Tight: %s %s; %s available, less than the transformer's %s plus buffers: its weights are re-read from disk at every step (about %s read per image): much slower.%s",
			size, needs, gb(avail), gb(mem.TransformerWeights), gb(e.ReadBytes), hint)
	}
}

func variant(m Model) string {
	kind := "base"
	if m.Distilled {
		kind = "distilled"
	}
	return strings.TrimSpace(m.Name + " " + kind)
}

// floorSide is px floored to a multiple of engine.SizeMultiple, as the pipeline sizes a
// reference.
func floorSide(px int) int { return px / engine.SizeMultiple * engine.SizeMultiple }
