package run

import (
	"kleinbild/app/jobs"
	"kleinbild/app/modelui"

	"image"

	"kleinbild/app/gallery"
	"kleinbild/app/progress"
	"kleinbild/app/settings"
	"kleinbild/engine"
	"kleinbild/engine/lora"
	"kleinbild/estimate"
	"kleinbild/gpu"
)

// Deps is what the runner uses of the other components; UI.wire gives it.
type Deps struct {
	Form     Form
	Refs     func() []string // the reference images' paths, in order
	Adapters Adapters
	Model    Model
	Fit      Fit
	View     View
	Gallery  Gallery
	// PhaseChanged tells the widgets that follow the run (Generate, the progress bar, the
	// model button) that it started, is cancelling or ended.
	PhaseChanged func(jobs.Phase)
}

// Form is the generation form as the runner reads it (controls).
type Form interface {
	// ReadForm validates the form; invalid fields show their message.
	ReadForm() (jobs.Form, bool)
	// CurrentSettings are the settings to remember for f.
	CurrentSettings(f jobs.Form) settings.Settings
	// UsedRandomSeed tells the form the random seed a run drew.
	UsedRandomSeed(seed uint64)
	// AddToHistory adds a prompt that was run to the recent prompts.
	AddToHistory(prompt string)
}

// Adapters is the adapters a job uses (adaptersSection).
type Adapters interface {
	Stack() lora.Stack
	// Partial reports whether the user accepted adapters that match the model in part.
	Partial() bool
}

// Model is the chosen model as the runner uses it (modelui.Model).
type Model interface {
	// Usable reports whether a model is chosen and opened without error.
	Usable() bool
	ModelInfo() engine.ModelInfo
	RunModel() modelui.RunModel
	EffectiveDevice() string
	// RunPrecision is the precision the next run uses on the effective device.
	RunPrecision() gpu.Precision
	GpuBackendOf(device string) string
	// FallBackToCPU switches to the CPU after the GPU failed with msg.
	FallBackToCPU(msg string)
	// ShowDialog opens the model dialog.
	ShowDialog()
}

// Fit is the fit line as the runner uses it: memory questions and load times (fitLine).
type Fit interface {
	Confirm(run func())
	ConfirmJob(j *jobs.Job, verb string, run func())
	// LearnLoad takes a load measured on device (c is valid when ok) and refreshes.
	LearnLoad(device string, c estimate.Calibration, ok bool)
	// LearnRuns takes c's measured runs (estimate.Calibration.Runs) on device and refreshes.
	LearnRuns(device string, c estimate.Calibration)
	// PhasePlan is the expected time of each phase of an image of j (zero: none).
	PhasePlan(j *jobs.Job, first bool) progress.Plan
}

// View is the viewer as the runner shows its run there.
type View interface {
	// FollowsRun reports whether the viewer shows the running generation.
	FollowsRun() bool
	SetFollowRun(follow bool)
	SetImage(img image.Image)
	Update()
	ShowProgress(frac float64, text string)
	// ShownEntry is the gallery image shown, if any.
	ShownEntry() (gallery.Entry, bool)
	ClearShown()
	// BatchMark is the file the run's grid outlines ("" for none).
	BatchMark() string
}

// Gallery is the gallery grid as the runner picks images in it (galleryView).
type Gallery interface {
	Refresh()
	// NoteNew says when the filter hides the new image file.
	NoteNew(file string)
	// SelectEntry selects file and shows it; full is its decoded image when at hand.
	SelectEntry(file string, full image.Image)
}
