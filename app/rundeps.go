package app

import (
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
	phaseChanged func(runPhase)
}

// runPhase is where the runner stands.
type runPhase int

const (
	runIdle       runPhase = iota // nothing runs
	runRunning                    // a job runs; Generate is Cancel
	runCancelling                 // the running job was cancelled and has not stopped yet
)

// runForm is the generation form as the runner reads it (controls).
type runForm interface {
	// readForm validates the form; invalid fields show their message.
	readForm() (form, bool)
	// currentSettings are the settings to remember for f.
	currentSettings(f form) settings.Settings
	// usedRandomSeed tells the form the random seed a run drew.
	usedRandomSeed(seed uint64)
	// addToHistory adds a prompt that was run to the recent prompts.
	addToHistory(prompt string)
}

// adapterStack is the adapters a job uses (adaptersSection).
type adapterStack interface {
	stack() lora.Stack
	// partial reports whether the user accepted adapters that match the model in part.
	partial() bool
}

// runModelState is the chosen model as the runner uses it (modelSettings).
type runModelState interface {
	// usable reports whether a model is chosen and opened without error.
	usable() bool
	modelInfo() engine.ModelInfo
	runModel() runModel
	effectiveDevice() string
	// runPrecision is the precision the next run uses on the effective device.
	runPrecision() gpu.Precision
	gpuBackendOf(device string) string
	// fallBackToCPU switches to the CPU after the GPU failed with msg.
	fallBackToCPU(msg string)
	// showDialog opens the model dialog.
	showDialog()
}

// runFit is the fit line as the runner uses it: memory questions and load times (fitLine).
type runFit interface {
	confirm(run func())
	confirmJob(j *job, verb string, run func())
	// learnLoad takes a load measured on device (c is valid when ok) and refreshes.
	learnLoad(device string, c estimate.Calibration, ok bool)
	// learnRuns takes c's measured runs (estimate.Calibration.Runs) on device and refreshes.
	learnRuns(device string, c estimate.Calibration)
	// phasePlan is the expected time of each phase of an image of j (zero: none).
	phasePlan(j *job, first bool) progress.Plan
}

// runView is the viewer as the runner shows its run there.
type runView interface {
	// followsRun reports whether the viewer shows the running generation.
	followsRun() bool
	setFollowRun(follow bool)
	setImage(img image.Image)
	update()
	showProgress(frac float64, text string)
	// shownEntry is the gallery image shown, if any.
	shownEntry() (gallery.Entry, bool)
	clearShown()
	// batchMark is the file the run's grid outlines ("" for none).
	batchMark() string
}

// entryPicker is the gallery grid as the runner and viewer pick images in it (galleryView).
type entryPicker interface {
	refresh()
	// noteNew says when the filter hides the new image file.
	noteNew(file string)
	// selectEntry selects file and shows it; full is its decoded image when at hand.
	selectEntry(file string, full image.Image)
}
