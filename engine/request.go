// Package engine runs FLUX.2-klein: it opens a model folder in the Hugging Face layout and
// turns a Request (prompt, size, seed, reference images) into an image, reporting progress
// and honouring cancellation. It holds no UI code and prints nothing; the CLI and the app
// call Model.Generate.
package engine

import (
	"fmt"
	"image"
	"time"
)

// Size limits of the output image, per side, in pixels. Sizes are floored to multiples of
// SizeMultiple like the reference pipeline does.
const (
	MinSizePx    = 16
	MaxSizePx    = 4096
	SizeMultiple = 16
	// MaxReferences caps the number of reference images of one request.
	MaxReferences = 8
)

// Request is one generation.
type Request struct {
	Prompt string
	// WidthPx and HeightPx are the output size; 0 means "from the first reference image" when
	// there is one, else DefaultSizePx. Both are floored to multiples of 16.
	WidthPx, HeightPx int
	// Steps is the number of denoising steps (1..MaxSteps); 0 picks the variant's default
	// (DefaultStepsDistilled or DefaultStepsBase).
	Steps int
	// Seed selects the initial noise (torch-compatible CPU randn).
	Seed uint64
	// Guidance is the CFG scale for base models; 0 picks DefaultGuidance. Ignored by
	// distilled models.
	Guidance float64
	// Schedule is "flow" (default, the reference's shifted schedule), "linear" or "power".
	Schedule string
	// References are image files used for image-to-image / multi-reference conditioning.
	References []string
	// Latents optionally replaces the seeded noise: [128, H/16, W/16] (NCHW without batch).
	Latents []float32
	// PromptEmbeds optionally replaces text encoding: [TextTokens, 3·hidden].
	PromptEmbeds []float32
	// Dump, when set, receives every intermediate tensor (name, shape, values).
	Dump func(name string, shape []int, data []float32) error
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
	// Timings per phase.
	Timings map[Phase]time.Duration
	// Latents are the final latents [128, H/16, W/16].
	Latents []float32
}

// ValidateSize checks one side length and returns it floored to a multiple of 16.
func ValidateSize(name string, px int) (int, error) {
	if px < MinSizePx || px > MaxSizePx {
		return 0, fmt.Errorf("%s %d px is out of range: use %d..%d (multiples of %d)", name, px, MinSizePx, MaxSizePx, SizeMultiple)
	}
	return px / SizeMultiple * SizeMultiple, nil
}
