//go:build !cgo

package webgpu

import (
	"context"
	"errors"

	"kleinbild/gpu"
)

// Backend is the WebGPU backend; without cgo it cannot be created.
type Backend struct{ gpu.Backend }

var errNoCgo = errors.New("webgpu: built without cgo")

// Adapters lists no adapters without cgo.
func Adapters() ([]gpu.DeviceInfo, error) { return nil, nil }

// New fails without cgo.
func New(opts Options) (*Backend, error) { return nil, errNoCgo }

// Compiled reports whether this build holds the WebGPU backend (it needs cgo).
const Compiled = false

// AdapterDetails lists no adapters without cgo.
func AdapterDetails() ([]Adapter, error) { return nil, nil }

// Adapter is the zero Adapter without cgo.
func (b *Backend) Adapter() Adapter { return Adapter{} }

// Tune fails without cgo.
func (b *Backend) Tune(context.Context, TuneOptions) (*TuneResult, error) { return nil, errNoCgo }

// TuningCurrent is false without cgo.
func TuningCurrent(Adapter) bool { return false }

// Tuned is false without cgo.
func (b *Backend) Tuned() bool { return false }

// OpTime is the GPU time of one op's dispatches (profiling needs cgo).
type OpTime struct {
	Op         string  `json:"op"`
	Seconds    float64 `json:"seconds"`
	Dispatches int     `json:"dispatches"`
}
