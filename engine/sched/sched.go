// Package sched holds the flow-matching sigma schedules of the FLUX.2-klein sampler. The
// Euler step itself, x += (sigma[i+1] − sigma[i])·v with the difference taken in float32,
// runs on the compute backend (gpu.Backend.AddScaled).
//
// The default schedule ("flow") reproduces Flux2KleinPipeline + FlowMatchEulerDiscreteScheduler
// bit for bit: sigmas = linspace(1, 1/n, n) in float64, cast to float32, exponentially time
// shifted by mu = EmpiricalMu(seqLen, n) in float32 arithmetic (numpy semantics), then a final 0
// appended; timesteps = sigma·1000 in float32; the transformer receives timestep/1000 (float32).
//
// Every float expression that must round like the reference carries an explicit conversion:
// Go may fuse x*y+z into one FMA on some architectures unless the product is converted.
package sched

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// NumTrainTimesteps is the scheduler's num_train_timesteps: timesteps are sigma·1000.
const NumTrainTimesteps = 1000

// DefaultPowerAlpha is the exponent of the "power" schedule when none is given (flux2.c's
// --power default).
const DefaultPowerAlpha = 2.0

// Schedule is a denoising schedule of n steps: Sigmas has n+1 entries ending in 0, Timesteps
// the n values sigma·1000 (float32) of the steps.
type Schedule struct {
	Sigmas    []float32
	Timesteps []float32
}

// Steps is the number of denoising steps.
func (s Schedule) Steps() int { return len(s.Timesteps) }

// TimestepPassed is the timestep value step i hands to the transformer: Timesteps[i]/1000
// as a float32 division (not always bit-equal to Sigmas[i]).
func (s Schedule) TimestepPassed(i int) float32 {
	return s.Timesteps[i] / NumTrainTimesteps
}

// EmpiricalMu is compute_empirical_mu of the FLUX.2 pipelines in float64: a line in
// num_steps fitted between the two empirical lines for 10 and 200 steps; above 4300 image
// tokens only the 200-step line is used. seqLen is the number of target image tokens
// ((H/16)·(W/16)); reference tokens do not count.
func EmpiricalMu(seqLen, n int) float64 {
	const (
		a1, b1 = 8.73809524e-05, 1.89833333
		a2, b2 = 0.00016927, 0.45666666
	)
	s := float64(seqLen)
	if seqLen > 4300 {
		return float64(a2*s) + b2
	}
	m200 := float64(a2*s) + b2
	m10 := float64(a1*s) + b1
	a := (m200 - m10) / 190.0
	b := m200 - float64(200.0*a)
	return float64(a*float64(n)) + b
}

// linspace is numpy.linspace(start, stop, n) in float64: start + i·step with the last entry
// set to stop exactly.
func linspace(start, stop float64, n int) []float64 {
	y := make([]float64, n)
	if n == 1 {
		y[0] = start
		return y
	}
	step := (stop - start) / float64(n-1)
	for i := range y {
		y[i] = float64(float64(i)*step) + start
	}
	y[n-1] = stop
	return y
}

// Flow is the default FLUX.2 schedule for n steps and imageSeqLen target tokens (the
// time-shifted linspace described in the package comment). n must be at least 1; for
// smaller n it returns an empty Schedule (ByName reports the error instead).
func Flow(n, imageSeqLen int) Schedule {
	if n < 1 {
		return Schedule{}
	}
	mu := EmpiricalMu(imageSeqLen, n)
	// numpy float32 array arithmetic with Python float scalars: the scalar becomes float32.
	e := float32(math.Exp(mu))
	sig := make([]float32, n+1)
	for i, v := range linspace(1, 1/float64(n), n) {
		t := float32(v)
		r := float32(float32(1)/t) - 1 // (1/t - 1) ** 1.0
		sig[i] = e / float32(e+r)
	}
	return fromSigmas(sig)
}

// Linear is flux2.c's --linear schedule: sigma_i = 1 − i/n for i = 0..n (float32), no shift.
func Linear(n int) Schedule {
	if n < 1 {
		return Schedule{}
	}
	sig := make([]float32, n+1)
	for i := range sig {
		sig[i] = 1 - float32(i)/float32(n)
	}
	sig[n] = 0
	return fromSigmas(sig)
}

// Power is flux2.c's --power schedule: sigma_i = 1 − (i/n)^alpha for i = 0..n, denser at
// the start for alpha > 1 (alpha 1 is Linear). alpha must be positive; n at least 1.
func Power(n int, alpha float64) Schedule {
	if n < 1 || !(alpha > 0) || math.IsInf(alpha, 0) {
		return Schedule{}
	}
	sig := make([]float32, n+1)
	for i := range sig {
		t := float32(i) / float32(n)
		sig[i] = 1 - float32(math.Pow(float64(t), alpha))
	}
	sig[n] = 0
	return fromSigmas(sig)
}

// fromSigmas derives the float32 timesteps sigma·1000 of all but the final sigma.
func fromSigmas(sig []float32) Schedule {
	ts := make([]float32, len(sig)-1)
	for i := range ts {
		ts[i] = sig[i] * NumTrainTimesteps
	}
	return Schedule{Sigmas: sig, Timesteps: ts}
}

// Names lists the schedule names ByName accepts ("power" also takes an exponent as
// "power:1.5").
var Names = []string{"flow", "linear", "power"}

// ByName builds the named schedule for n steps and seqLen target image tokens: "flow" (or
// "", the default), "linear", "power" or "power:<alpha>".
func ByName(name string, n, seqLen int) (Schedule, error) {
	if err := Check(name); err != nil {
		return Schedule{}, err
	}
	if n < 1 {
		return Schedule{}, fmt.Errorf("schedule %q: %d steps, need at least 1", name, n)
	}
	switch name {
	case "", "flow":
		if seqLen < 1 {
			return Schedule{}, fmt.Errorf("schedule %q: image sequence length %d, need at least 1", name, seqLen)
		}
		return Flow(n, seqLen), nil
	case "linear":
		return Linear(n), nil
	case "power":
		return Power(n, DefaultPowerAlpha), nil
	}
	alpha, _ := powerAlpha(name)
	return Power(n, alpha), nil
}

// Check is ByName's rule for a name, without building anything: "", a name of Names, or
// "power:<alpha>" with a positive finite alpha.
func Check(name string) error {
	switch name {
	case "", "flow", "linear", "power":
		return nil
	}
	if _, ok := strings.CutPrefix(name, "power:"); ok {
		if _, err := powerAlpha(name); err != nil {
			return err
		}
		return nil
	}
	return fmt.Errorf("unknown schedule %q (want one of %s)", name, strings.Join(Names, ", "))
}

// powerAlpha is the exponent of a "power:<alpha>" name.
func powerAlpha(name string) (float64, error) {
	a, _ := strings.CutPrefix(name, "power:")
	alpha, err := strconv.ParseFloat(a, 64)
	if err != nil || !(alpha > 0) || math.IsInf(alpha, 0) {
		return 0, fmt.Errorf("schedule %q: power exponent must be a positive number", name)
	}
	return alpha, nil
}
