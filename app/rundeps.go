package app

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

// runnerDeps is what the runner uses of the other components; UI.wire gives it.
type runnerDeps struct {
	form     runForm
	refs     func() []string // the reference images' paths, in order
	adapters adapterStack
	model    runModelState
	fit      runFit
	view     runView
	gal      entryPicker
	// phaseChanged tells the widgets that follow the run (Generate, the progress bar, the
	// model button) that it started, is cancelling or ended.
	phaseChanged func(jobs.Phase)
}

// runForm is the generation form as the runner reads it (controls).
type runForm interface {
	// ReadForm validates the form; invalid fields show their message.
	ReadForm() (jobs.Form, bool)
	// CurrentSettings are the settings to remember for f.
	CurrentSettings(f jobs.Form) settings.Settings
	// UsedRandomSeed tells the form the random seed a run drew.
	UsedRandomSeed(seed uint64)
	// AddToHistory adds a prompt that was run to the recent prompts.
	AddToHistory(prompt string)
}

// adapterStack is the adapters a job uses (adaptersSection).
type adapterStack interface {
	Stack() lora.Stack
	// Partial reports whether the user accepted adapters that match the model in part.
	Partial() bool
}

// runModelState is the chosen model as the runner uses it (modelui.Model).
type runModelState interface {
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

// runFit is the fit line as the runner uses it: memory questions and load times (fitLine).
type runFit interface {
	Confirm(run func())
	ConfirmJob(j *job, verb string, run func())
	// LearnLoad takes a load measured on device (c is valid when ok) and refreshes.
	LearnLoad(device string, c estimate.Calibration, ok bool)
	// LearnRuns takes c's measured runs (estimate.Calibration.Runs) on device and refreshes.
	LearnRuns(device string, c estimate.Calibration)
	// PhasePlan is the expected time of each phase of an image of j (zero: none).
	PhasePlan(j *job, first bool) progress.Plan
}

// runView is the viewer as the runner shows its run there.
type runView interface {
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

// entryPicker is the gallery grid as the runner and viewer pick images in it (galleryView).
type entryPicker interface {
	Refresh()
	// NoteNew says when the filter hides the new image file.
	NoteNew(file string)
	// SelectEntry selects file and shows it; full is its decoded image when at hand.
	SelectEntry(file string, full image.Image)
}
