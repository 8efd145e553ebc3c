package source

// The defaults of a variant, which ModelInfo records (DefaultSteps, DefaultGuidance) and
// the engine plans with (engine.StepsFor): the one definition of each.
const (
	// DefaultStepsDistilled and DefaultStepsBase are the step counts of the distilled and
	// base variants when a request gives none.
	DefaultStepsDistilled = 4
	DefaultStepsBase      = 50
	// DefaultGuidance is the classifier-free guidance scale of the base variant when a
	// request gives none (distilled models run without guidance).
	DefaultGuidance = 4.0
)

// StepsFor and GuidanceFor are the defaults of a variant: DefaultStepsDistilled and no
// guidance (1) for distilled models, DefaultStepsBase and DefaultGuidance for base models.
func StepsFor(distilled bool) int {
	if distilled {
		return DefaultStepsDistilled
	}
	return DefaultStepsBase
}

// GuidanceFor is the default guidance scale of a variant (see StepsFor).
func GuidanceFor(distilled bool) float64 {
	if distilled {
		return 1.0 // no guidance
	}
	return DefaultGuidance
}
