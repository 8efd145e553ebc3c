package form

import (
	"kleinbild/engine"
	"kleinbild/engine/lora"
	"kleinbild/estimate"
	"kleinbild/gpu/backends"
)

// FitDeps is what the fit line uses of the other components; the window's wiring gives it.
type FitDeps struct {
	Form EstimateForm
	Refs func() []string // the form's reference images
	// Adapters is the adapter stack the estimate counts in.
	Adapters func() lora.Stack
	// ShapesChanged passes the new model's shapes (nil when unknown) on to the adapters.
	ShapesChanged func(*estimate.Model)
	Chosen        FitModel
	// Loaded reports whether the model key is open on device (the runner's).
	Loaded func(key, device string) bool
	// Relayout lays the side panel out again after the line changed.
	Relayout func()
	// UseCPU moves the generations to the CPU until a device is chosen again, saying why
	// (modelui.Model.UseCPU).
	UseCPU func(reason string)
	// Busy reports whether a generation runs: the calibration waits for its end (measured
	// beside a run, on the same cores, attention came out 50× slow and was stored so).
	Busy func() bool
}

// EstimateForm is the form as the estimate reads it (Controls).
type EstimateForm interface {
	// Figures are the form's numbers, valid or not.
	Figures() FormFigures
}

// FormFigures are the numbers of the form that an estimate needs.
type FormFigures struct {
	width, height int
	sizeOK        bool // both sides are valid
	steps         int  // 0: the model's default
	guidance      float64
	count         int // images per run
}

// FitModel is the chosen model and device as the estimate needs them (modelui.Model).
type FitModel interface {
	// ModelKey identifies the model chosen (modelui.Spec.key).
	ModelKey() string
	// UsableSource is the model as read when chosen; nil when unusable or unset.
	UsableSource() engine.Source
	EffectiveDevice() string
	// DeviceChoice is the device the user chose, "" for the automatic choice.
	DeviceChoice() string
	DeviceFor(id string) (backends.Device, bool)
}
