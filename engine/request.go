// Package engine runs FLUX.2-klein: it opens a model (a Source: today a folder in the
// Hugging Face layout) and turns a Request (prompt, size, seed, reference images), made a
// Plan, into an image, reporting progress and honouring cancellation. It holds no UI code
// and prints nothing; the CLI and the app call Model.Generate.
package engine

import (
	"fmt"
	"image"
	"math"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
	"kleinbild/engine/lora"
)

// What the engine accepts for a side of the output image, in pixels (CheckSettings): wider
// than the rule for sizes users ask for (CheckSize, MinSidePx..MaxSidePx), so that sizes
// taken from reference images or latents still work. Sizes are floored to multiples of
// SizeMultiple like the reference pipeline does (NewPlan); CheckEngineSize is this range
// for users, who must give exact multiples.
const (
	EngineMinSidePx = 16
	EngineMaxSidePx = 4096
	// SizeMultiple is the pixels of one latent token per side: the VAE's 8× downscale, then
	// 2×2 patches. Reference images are floored to it too (imageio.SizeMultiple).
	SizeMultiple = imageio.SizeMultiple
	// MaxReferences caps the number of reference images of one request.
	MaxReferences = 8
	// MaxPromptBytes caps a prompt's length. The text encoder reads only the first
	// TextTokens tokens (a few KB of text); the cap keeps prompts, and the metadata that
	// records them, small enough for any text field.
	MaxPromptBytes = 64 << 10
	// MinGuidance and MaxGuidance bound Request.Guidance (0 picks the default). 1 turns
	// classifier-free guidance off; scales far above the usual 2..10 only saturate the
	// image (and overflow float32 at about 1e38).
	MinGuidance = 1
	MaxGuidance = 30
)

// Request is one generation: its saved settings (Settings, embedded: a new setting reaches
// the request without a change here) and what it holds only while it runs. Settings' Width
// and Height are the output size; 0 means "from the first reference image" when there is
// one, else DefaultSizePx, and both are floored to multiples of 16. With Image set, the
// picture is repainted (Flux2KleinInpaintPipeline, see NewPlan): the output takes its size
// (Width and Height are ignored, as the pipeline ignores them), it conditions the
// transformer as the first reference, and References then holds at most one extra one.
type Request struct {
	Settings
	// Latents optionally replaces the seeded noise: [128, H/16, W/16] (NCHW without batch).
	Latents []float32
	// PromptEmbeds optionally replaces text encoding: [TextTokens, 3·hidden].
	PromptEmbeds []float32
	// Adapters are LoRA/LoKr adapters (lora.Open) with their strengths, applied at run time
	// (see Model.SetAdapters); Settings.AdaptersPartial accepts adapters with keys that
	// match nothing in the model (listed by lora.Adapter.Check otherwise).
	Adapters lora.Stack
	// Dump, when set, receives every intermediate tensor (name, shape, values).
	Dump func(name string, shape []int, data []float32) error
}

// Padding is the outpainting of the request (Settings.Outpaint) as inpaint's type: zero
// when there is none.
func (req Request) Padding() inpaint.Padding { return PaddingOf(req.Outpaint) }

// PaddingOf is a saved outpainting (left, top, right, bottom px; nil for none) as
// inpaint's type.
func PaddingOf(o *[4]int) inpaint.Padding {
	if o == nil {
		return inpaint.Padding{}
	}
	return inpaint.Padding{Left: o[0], Top: o[1], Right: o[2], Bottom: o[3]}
}

// OutpaintOf is p as Settings.Outpaint saves it: nil when p is zero.
func OutpaintOf(p inpaint.Padding) *[4]int {
	if p.IsZero() {
		return nil
	}
	return &[4]int{p.Left, p.Top, p.Right, p.Bottom}
}

// Phase names a stage of a generation, for progress display.
type Phase string

// The phases of a generation, in order.
const (
	PhaseLoading  Phase = "loading"
	PhaseEncoding Phase = "encoding"
	PhaseRefs     Phase = "references"
	PhaseDenoise  Phase = "denoising"
	PhaseDecoding Phase = "decoding"
	PhaseDone     Phase = "done"
)

// Progress reports where a generation is. Step counts from 1 during PhaseDenoise; Block is
// the transformer block (or encoder layer / VAE block) within the current step or phase.
type Progress struct {
	Phase         Phase
	Step, Steps   int
	Block, Blocks int
	Elapsed       time.Duration
	// Preview is a cheap RGB projection of the current latent (set after each step), or nil.
	Preview image.Image
}

// Result is a finished generation.
type Result struct {
	Image    *image.NRGBA
	Seed     uint64
	WidthPx  int
	HeightPx int
	Steps    int
	Guidance float64
	Schedule string
	// Noise is the kind of initial noise used (NoiseTorch or NoiseStable); empty when the
	// request gave the latents.
	Noise string
	// Timings per phase.
	Timings map[Phase]time.Duration
	// Latents are the final latents [128, H/16, W/16].
	Latents []float32

	// Strength is the inpainting strength used (0 for text-to-image). Steps is then the
	// schedule's length, of which the last ceil(Steps·Strength) or so ran.
	Strength float64
}

// ValidateGuidance checks a guidance scale: 0 (the default) or a finite number in
// MinGuidance..MaxGuidance.
func ValidateGuidance(g float64) error {
	if g == 0 || g >= MinGuidance && g <= MaxGuidance { // false for NaN
		return nil
	}
	if math.IsNaN(g) || math.IsInf(g, 0) {
		return fmt.Errorf("guidance %v is not a number: use %d..%d (0 for the default)", g, MinGuidance, MaxGuidance)
	}
	return fmt.Errorf("guidance %g is out of range: use %d..%d (0 for the default)", g, MinGuidance, MaxGuidance)
}

// ValidatePrompt checks a prompt's length.
func ValidatePrompt(prompt string) error {
	if len(prompt) > MaxPromptBytes {
		return fmt.Errorf("prompt is %d bytes long: at most %d are allowed (the text encoder reads only its first %d tokens)", len(prompt), MaxPromptBytes, TextTokens)
	}
	return nil
}

// Side limits of a requested output size: what the app and the CLI accept from users. The
// model works within them (quality degrades beyond MaxSidePx); the engine itself accepts
// EngineMinSidePx..EngineMaxSidePx so that sizes taken from reference images or latents
// still work. MinSidePx is also the smallest reference side (imageio.MinSidePx).
const (
	MinSidePx = imageio.MinSidePx
	MaxSidePx = 1792
)

// CheckSize is the one rule for an output side a user asks for, shared by the app and the
// CLI: a whole multiple of SizeMultiple within MinSidePx..MaxSidePx. It never rounds.
func CheckSize(px int) error { return checkSide(px, MinSidePx, MaxSidePx) }

// CheckEngineSize is CheckSize over the engine's range, EngineMinSidePx..EngineMaxSidePx:
// what the CLI accepts for -W and -H. It never rounds.
func CheckEngineSize(px int) error { return checkSide(px, EngineMinSidePx, EngineMaxSidePx) }

// SizeError is the error of CheckSize and CheckEngineSize: Px is not a multiple of
// SizeMultiple within Min..Max. Within the range, Lower and Upper are the nearest valid
// sides; front ends word the message their own way from these fields.
type SizeError struct {
	Px, Min, Max int
	OutOfRange   bool
	Lower, Upper int
}

func (e *SizeError) Error() string {
	if e.OutOfRange {
		return fmt.Sprintf("%d px is out of range: use a multiple of %d between %d and %d", e.Px, SizeMultiple, e.Min, e.Max)
	}
	return fmt.Sprintf("%d px is not a multiple of %d: try %d or %d", e.Px, SizeMultiple, e.Lower, e.Upper)
}

// checkSide checks that px is a whole multiple of SizeMultiple within lo..hi (a *SizeError).
func checkSide(px, lo, hi int) error {
	if px < lo || px > hi {
		return &SizeError{Px: px, Min: lo, Max: hi, OutOfRange: true}
	}
	if px%SizeMultiple != 0 {
		l := px / SizeMultiple * SizeMultiple
		return &SizeError{Px: px, Min: lo, Max: hi, Lower: max(l, lo), Upper: min(l+SizeMultiple, hi)}
	}
	return nil
}

// ValidateSteps checks a number of denoising steps given explicitly: 1..MaxSteps (a
// Request's 0, the variant's default, is checked by CheckRequest).
func ValidateSteps(n int) error {
	if n < 1 || n > MaxSteps {
		return fmt.Errorf("steps %d out of range 1..%d", n, MaxSteps)
	}
	return nil
}

// ValidateReferences checks a number of reference images: at most MaxReferences.
func ValidateReferences(n int) error {
	if n > MaxReferences {
		return fmt.Errorf("%d reference images given: at most %d are supported", n, MaxReferences)
	}
	return nil
}
