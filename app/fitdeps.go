package app

import (
	"kleinbild/engine"
	"kleinbild/engine/lora"
	"kleinbild/estimate"
	"kleinbild/gpu/backends"
)

// fitDeps is what the fit line uses of the other components; UI.wire gives it.
type fitDeps struct {
	form estimateForm
	refs func() []string // the form's reference images
	// adapters is the adapter stack the estimate counts in.
	adapters func() lora.Stack
	// shapesChanged passes the new model's shapes (nil when unknown) on to the adapters.
	shapesChanged func(*estimate.Model)
	chosen        fitModel
	// loaded reports whether the model key is open on device (runner.modelLoaded).
	loaded func(key, device string) bool
	// relayout lays the side panel out again after the line changed.
	relayout func()
	// useCPU moves the generations to the CPU until a device is chosen again, saying why
	// (modelui.Model.UseCPU).
	useCPU func(reason string)
	// busy reports whether a generation runs: the calibration waits for its end (measured
	// beside a run, on the same cores, attention came out 50× slow and was stored so).
	busy func() bool
}

// estimateForm is the form as the estimate reads it (controls).
type estimateForm interface {
	// Figures are the form's numbers, valid or not.
	Figures() formFigures
}

// formFigures are the numbers of the form that an estimate needs.
type formFigures struct {
	width, height int
	sizeOK        bool // both sides are valid
	steps         int  // 0: the model's default
	guidance      float64
	count         int // images per run
}

// fitModel is the chosen model and device as the estimate needs them (modelui.Model).
type fitModel interface {
	// ModelKey identifies the model chosen (modelui.Spec.key).
	ModelKey() string
	// UsableSource is the model as read when chosen; nil when unusable or unset.
	UsableSource() engine.Source
	EffectiveDevice() string
	// DeviceChoice is the device the user chose, "" for the automatic choice.
	DeviceChoice() string
	DeviceFor(id string) (backends.Device, bool)
}
