package engine

import "kleinbild/engine/tokenizer"

// Pipeline defaults and limits: the one definition of each, shared by Generate, Inspect and
// the tools that estimate a generation's cost (package estimate).
const (
	// DefaultSizePx is the output side length when a request gives none and has no
	// reference image.
	DefaultSizePx = 256
	// MaxSteps is the largest number of denoising steps a request may ask for.
	MaxSteps = 200
	// DefaultStepsDistilled and DefaultStepsBase are the step counts of the distilled and
	// base variants when a request gives none.
	DefaultStepsDistilled = 4
	DefaultStepsBase      = 50
	// DefaultGuidance is the classifier-free guidance scale of the base variant when a
	// request gives none (distilled models run without guidance).
	DefaultGuidance = 4.0
	// TextTokens is the length of every prompt embedding in tokens (padding included).
	TextTokens = tokenizer.MaxLength
)
