package engine

import (
	"fmt"
	"image"

	"kleinbild/engine/inpaint"
	"kleinbild/engine/source"
)

// Plan is a Request checked and completed for one model: every default filled in and the
// output size settled. NewPlan makes it, in one place; Generate runs it and the estimate
// (package estimate) prices it.
type Plan struct {
	// Request is the request as given (prompt, seed, references, latents, embeddings, dump).
	Request Request
	// WidthPx and HeightPx are the output size: given, else the first reference's, else
	// DefaultSizePx; floored to multiples of SizeMultiple.
	WidthPx, HeightPx int
	// Steps is the number of denoising steps (the variant's default when none was given).
	Steps int
	// Guidance is the guidance scale (DefaultGuidance when none was given).
	Guidance float64
	// CFG is true when classifier-free guidance runs: a base model and Guidance above 1.
	CFG bool
	// Schedule is the sigma schedule's name ("flow" when none was given).
	Schedule string
	// Refs are the reference images' sizes after preprocessing, in order. For inpainting
	// the first is the image to inpaint (its conditioning tokens), the second the extra
	// reference, if any.
	Refs []image.Point
	// Inpaint is set for inpainting and outpainting (Request.Image): the schedule of Steps
	// runs from step TStart, which Strength (the request's, or DefaultStrength) picks.
	Inpaint  bool
	Strength float64
	TStart   int
}

// StepsFor and GuidanceFor are the defaults of a variant (source.StepsFor): DefaultStepsDistilled
// and no guidance (1) for distilled models, DefaultStepsBase and DefaultGuidance for base models.
func StepsFor(distilled bool) int { return source.StepsFor(distilled) }

// GuidanceFor is the default guidance scale of a variant (see StepsFor).
func GuidanceFor(distilled bool) float64 { return source.GuidanceFor(distilled) }

// CheckRequest checks what NewPlan checks before the references are read: the request's
// settings (CheckSettings) and its adapters' strengths (Generate checks the adapters' fit
// to the model, Model.CheckAdapters). Generate runs it before reading the
// reference images, so that a bad request fails before any file is read.
func CheckRequest(req Request, distilled bool) error {
	if err := CheckSettings(SettingsOf(req), distilled); err != nil {
		return err
	}
	return req.Adapters.Check()
}

// NewPlan checks req for a model of the given variant (CheckRequest), fills in its
// defaults and settles the output size (planChecked). refs are the sizes of the request's reference
// images after preprocessing (imageio.Preprocess), in order; a zero side of the request
// takes the first reference's. For inpainting (Request.Image) refs[0] is the prepared
// image's size, which the output takes whatever the request says, and the plan gets the
// strength and the start step (inpaint.StartStep).
func NewPlan(req Request, distilled bool, refs []image.Point) (Plan, error) {
	if err := CheckRequest(req, distilled); err != nil {
		return Plan{}, err
	}
	return planChecked(req, distilled, refs)
}

// planChecked is NewPlan for a request CheckRequest has passed: Generate checks the request
// before it reads the references and plans it after, so that it is checked once.
func planChecked(req Request, distilled bool, refs []image.Point) (Plan, error) {
	p := Plan{Request: req, Steps: req.Steps, Guidance: req.Guidance, Schedule: req.Schedule, Refs: refs}
	if p.Steps == 0 {
		p.Steps = StepsFor(distilled)
	}
	if p.Guidance == 0 {
		p.Guidance = GuidanceFor(distilled)
	}
	p.CFG = !distilled && p.Guidance > 1
	if p.Schedule == "" {
		p.Schedule = "flow"
	}
	width, height := req.Width, req.Height
	if req.Image != "" {
		if err := p.planInpaint(); err != nil {
			return Plan{}, err
		}
		width, height = refs[0].X, refs[0].Y
	}
	if width == 0 && len(refs) > 0 {
		width = refs[0].X
	}
	if height == 0 && len(refs) > 0 {
		height = refs[0].Y
	}
	p.WidthPx, p.HeightPx = orDefault(width, DefaultSizePx), orDefault(height, DefaultSizePx)
	if err := checkSideRange("width", p.WidthPx); err != nil {
		return Plan{}, err
	}
	if err := checkSideRange("height", p.HeightPx); err != nil {
		return Plan{}, err
	}
	p.WidthPx, p.HeightPx = p.WidthPx/SizeMultiple*SizeMultiple, p.HeightPx/SizeMultiple*SizeMultiple
	return p, nil
}

// planInpaint fills in the inpainting part of p: the strength and the start step. The
// output takes the image's size (Refs[0]), whatever the request's.
func (p *Plan) planInpaint() error {
	req := p.Request
	if len(p.Refs) == 0 {
		return fmt.Errorf("inpainting %s: the image's size is not known", req.Image)
	}
	p.Inpaint = true
	p.Strength = req.Strength
	if p.Strength == 0 {
		p.Strength = DefaultStrength
	}
	var err error
	if p.TStart, err = inpaint.StartStep(p.Steps, p.Strength); err != nil {
		return fmt.Errorf("inpainting %s: %w", req.Image, err)
	}
	return nil
}

// StepsRun is the number of denoising steps that run: Steps, less TStart when inpainting.
func (p Plan) StepsRun() int { return p.Steps - p.TStart }

// Grid is the latent token grid of the output: SizeMultiple pixels a token.
func (p Plan) Grid() (gw, gh int) { return p.WidthPx / SizeMultiple, p.HeightPx / SizeMultiple }

// ImageTokens is the number of output tokens; RefTokens those of the references.
func (p Plan) ImageTokens() int { gw, gh := p.Grid(); return gw * gh }

// RefTokens is the number of transformer tokens of the references.
func (p Plan) RefTokens() int {
	n := 0
	for _, r := range p.Refs {
		n += (r.X / SizeMultiple) * (r.Y / SizeMultiple)
	}
	return n
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
