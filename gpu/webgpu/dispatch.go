package webgpu

import (
	"math"

	"kleinbild/gpu"
)

// Dispatch length. A dispatch that runs too long trips the GPU watchdog: 2 s on Windows
// (TDR), a few seconds on macOS; Linux compositors vary. Kernels that can split their work
// (attention over query ranges, the matrix products over row or pixel ranges) keep each
// dispatch near DispatchSeconds at the rate their family runs on this device, and above a
// floor of workgroups, so that a split never starves a fast GPU: an H200 untuned at a
// conservative 100 GFLOP/s ran each attention call at 13,056 tokens as 408 dispatches of 24
// workgroups, on 132 SMs.
const (
	// DispatchSeconds is how long a dispatch should run: well under the 2 s watchdog.
	DispatchSeconds = 0.1
	// unmeasuredGFLOPS is the matrix-product rate assumed on a device of unknown speed
	// (software adapters, kinds not reported): a low-end integrated GPU's f32 rate.
	unmeasuredGFLOPS = 100
	// discreteGFLOPS is the rate assumed for a discrete GPU before anything was measured: a
	// low-end one's sustained f32 products (an H200 reaches 17,700 on the tuned kernels).
	discreteGFLOPS = 5000
	// integratedGFLOPS is the rate assumed for an integrated GPU before measuring.
	integratedGFLOPS = 500
	// fmaShare is the share of the FMA probe's peak the products are assumed to reach
	// before tuning measures them (an H200: 17.7 of 52.7 TFLOP/s tuned).
	fmaShare = 0.5
	// attentionShare is attention's rate as a share of the products' until tuning measures
	// it (0.2–0.8 on the devices measured).
	attentionShare = 0.5
	// floorCap bounds how far the workgroup floor may stretch a dispatch beyond the rate's
	// bound (its work at most floorCap × DispatchSeconds at the assumed rate).
	floorCap = 4
)

// deviceRates are the rates a dispatch's size is computed from, in GFLOP/s (0: unknown):
// the matrix-product rate tuning measured on FamilyLinear, attention's per family (their
// tuning workloads, useful FLOPs), and the FMA probe's peak (MeasureFMA).
type deviceRates struct {
	linear, attention, attention512, fma float64
}

// kindGFLOPS is the products' rate assumed for a device of kind before any measurement.
func kindGFLOPS(kind gpu.DeviceKind) float64 {
	switch kind {
	case gpu.KindDiscrete:
		return discreteGFLOPS
	case gpu.KindIntegrated:
		return integratedGFLOPS
	}
	return unmeasuredGFLOPS
}

// minDispatchGroups is the floor in workgroups per dispatch on a device of kind: a few waves
// of the largest GPUs of the kind (132 SMs on an H200, tens of cores on integrated ones). A
// software adapter has no floor: its rate bound alone keeps dispatches short on few cores.
func minDispatchGroups(kind gpu.DeviceKind) int {
	switch kind {
	case gpu.KindDiscrete:
		return 512
	case gpu.KindIntegrated, gpu.KindOther:
		return 128
	}
	return 0
}

// gflops is the rate a dispatch of family is sized for on a device of kind: the family's
// measured rate; else for the products the measured one, the FMA probe's share or the kind's
// default; attention without its own measurement takes attentionShare of the products'.
func (r deviceRates) gflops(kind gpu.DeviceKind, family string) float64 {
	lin := r.linear
	if lin <= 0 && r.fma > 0 {
		lin = r.fma * fmaShare
	}
	if lin <= 0 {
		lin = kindGFLOPS(kind)
	}
	switch family {
	case FamilyAttention:
		if r.attention > 0 {
			return r.attention
		}
		return lin * attentionShare
	case FamilyAttention512:
		if r.attention512 > 0 {
			return r.attention512
		}
		return lin * attentionShare
	}
	return lin
}

// dispatchBound is how a family's work is split into dispatches: at most flops per dispatch,
// unless that leaves fewer than minGroups workgroups; the floor then wins, up to floorCap ×
// flops.
type dispatchBound struct {
	flops     float64
	minGroups int
}

// bound is the dispatch bound of family on a device of kind with rates r.
func (r deviceRates) bound(kind gpu.DeviceKind, family string) dispatchBound {
	return dispatchBound{flops: r.gflops(kind, family) * 1e9 * DispatchSeconds, minGroups: minDispatchGroups(kind)}
}

// units is how many units of work (rows, queries, pixels: each perUnit FLOPs, in whole
// multiples of step, with groupsPerStep workgroups per step) one dispatch under d holds: the
// FLOP bound's, raised to the workgroup floor (as far as floorCap allows), at least one step.
func (d dispatchBound) units(perUnit float64, step, groupsPerStep int) int {
	perUnit = max(perUnit, 1)
	steps := math.Floor(d.flops / (perUnit * float64(step)))
	if d.minGroups > 0 && groupsPerStep > 0 {
		floor := math.Ceil(float64(d.minGroups) / float64(groupsPerStep))
		capped := math.Floor(floorCap * d.flops / (perUnit * float64(step)))
		steps = max(steps, min(floor, capped))
	}
	steps = min(max(steps, 1), 1<<30)
	return int(steps) * step
}

// needsProbe reports whether a device of kind opened with rates r runs the FMA probe
// (probeFMA) to size its dispatches: a real GPU that tuning has not measured. Software
// adapters keep the conservative default.
func needsProbe(kind gpu.DeviceKind, r deviceRates) bool {
	if r.linear > 0 || r.fma > 0 {
		return false
	}
	return kind == gpu.KindDiscrete || kind == gpu.KindIntegrated || kind == gpu.KindOther
}
