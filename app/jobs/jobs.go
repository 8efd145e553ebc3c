// Package jobs is what the app's form becomes before it runs, without any Fyne: a Job (one
// request, made Count times with seeds counting up), the checks a job must pass before a
// model is opened, its line in the queue and the request the estimate prices it by. The
// app's runner, queue and fit line use it.
package jobs

import (
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"strings"

	"kleinbild/engine"
	"kleinbild/estimate"
)

// Limits of the images-per-run setting (engine.MaxCount).
const (
	MinCount = 1
	MaxCount = engine.MaxCount
)

// Job is one generation waiting or running: a request and how many images to make from
// it, with seeds Req.Seed, Req.Seed+1, …
type Job struct {
	Req   engine.Request
	Count int
	// Missing are adapters whose files could not be opened when a stored queue was read
	// back (a disk not mounted yet): kept, saved again, and opened when the job runs.
	Missing []StoredAdapter
	// Picture is an inpainting job's picture size in pixels when known (zero otherwise):
	// the estimate prices the job by it (estimate.Request.PictureSize).
	Picture image.Point
}

// New makes a job of req run count times, count clamped to MinCount..MaxCount.
func New(req engine.Request, count int) *Job {
	return &Job{Req: req, Count: min(max(count, MinCount), MaxCount)}
}

// Label is the job's line in the queue: a prompt snippet, the size (for inpainting the
// mode and the picture's file name) and the image count.
func (j *Job) Label() string {
	s := fmt.Sprintf("%s · %d×%d", Ellipsize(j.Req.Prompt, 32), j.Req.Width, j.Req.Height)
	if mode := j.Req.Mode(); mode != "" { // the output takes the image's size
		s = fmt.Sprintf("%s · %s %s", Ellipsize(j.Req.Prompt, 32), mode, filepath.Base(j.Req.Image))
	}
	if j.Count > 1 {
		s += fmt.Sprintf(" · %d images", j.Count)
	}
	if len(j.Missing) > 0 {
		s += " · adapter missing"
	}
	return s
}

// Check checks a job by itself, before the model is opened: its size (engine.CheckSize,
// the rule users are held to; none for inpainting, whose output takes the image's size),
// then the rest of the request (engine.CheckRequest: steps, references, guidance, noise,
// adapters' strengths, prompt, inpainting settings). A job made by hand or from an old
// image's settings may have any of them wrong. The messages are the app's; the rules are
// the engine's.
func Check(req engine.Request) error {
	sides := []struct {
		name string
		px   int
	}{{"width", req.Width}, {"height", req.Height}}
	if req.Image != "" {
		sides = nil // inpainting: the output takes the image's size
	}
	for _, side := range sides {
		if err := engine.CheckSize(side.px); err != nil {
			return fmt.Errorf("the %s: %w", side.name, err)
		}
	}
	err := engine.CheckRequest(req, true) // the variant only picks the default steps, valid for both
	var fe *engine.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.Field {
	case "steps":
		return fmt.Errorf("%v steps is out of range: use %g to %g", fe.Value, fe.Min, fe.Max)
	case "references":
		return fmt.Errorf("%v reference images: at most %g can be used", fe.Value, fe.Max)
	}
	return err
}

// EstimateRequest is the request the estimate prices the job by, for a model of the given
// variant: the job's own request and picture size, its guidance dropped for distilled
// models (which ignore it).
func (j *Job) EstimateRequest(distilled bool) estimate.Request {
	req := estimate.Request{Req: j.Req, PictureSize: j.Picture}
	if distilled {
		req.Req.Guidance = 0
	}
	return req
}

// Ellipsize shortens s, its white space folded, to at most n runes.
func Ellipsize(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// ErrInvalidForm means a field of the generation form is invalid; the field shows why.
var ErrInvalidForm = errors.New("some settings are invalid")

// Form is the validated content of the generation form: the generation's settings (without
// the references and the adapters' consent, which their sections hold; the negative prompt
// and guidance on base models only), whether the seed was given, and the images per run.
type Form struct {
	engine.Settings
	SeedGiven bool
	Count     int
}
