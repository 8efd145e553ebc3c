package engine

import (
	"kleinbild/engine/source"
	"kleinbild/engine/tokenizer"
)

// Pipeline defaults and limits: the one definition of each, shared by Generate, Inspect and
// the tools that estimate a generation's cost (package estimate).
const (
	// DefaultSizePx is the output side length when a request gives none and has no
	// reference image.
	DefaultSizePx = 256
	// MaxSteps is the largest number of denoising steps a request may ask for.
	MaxSteps = 200
	// DefaultStepsDistilled and DefaultStepsBase are the step counts of the distilled and
	// base variants when a request gives none, and DefaultGuidance the base variant's
	// guidance scale: a variant's defaults, which ModelInfo records (package source).
	DefaultStepsDistilled = source.DefaultStepsDistilled
	DefaultStepsBase      = source.DefaultStepsBase
	DefaultGuidance       = source.DefaultGuidance
	// TextTokens is the length of every prompt embedding in tokens (padding included).
	TextTokens = tokenizer.MaxLength
)
