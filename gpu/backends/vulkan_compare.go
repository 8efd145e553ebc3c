package backends

import (
	"context"
	"fmt"
	"math"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/vulkan"
	"kleinbild/gpu/webgpu"
)

// CompareOptions configure CompareVulkan.
type CompareOptions struct {
	// Workloads are the work timed on both backends (nil: VulkanWorkloads(Scale)).
	Workloads []webgpu.Workload
	// Scale divides the model's shapes (the tuning's TuneResult.Scale; 0 is 1).
	Scale int
	// Budget bounds the timing (0: 30 s), shared equally by every workload on each backend.
	Budget time.Duration
	// Reps is the most timed batches per workload and backend (0: 3).
	Reps int
	// NoSave leaves the record alone (the default rule does not see the result).
	NoSave bool
	// Force times again where the record is current.
	Force bool
}

// VulkanComparison is what CompareVulkan found.
type VulkanComparison struct {
	// VulkanID is the card's Vulkan device ("vulkan:M"; "" when it has none, Note says why).
	VulkanID, VulkanName string
	Record               *VulkanRecord // the times (nil when nothing was timed)
	// Faster is the default rule's verdict on this record; Why its grounds.
	Faster bool
	Why    string
	Note   string // why nothing was timed ("" in a build without Vulkan)
	Saved  bool   // the record is in the tuning cache folder: the default rule reads it
	Cached bool   // nothing was timed: the record was current
}

// VulkanWorkloads is the model-shaped work CompareVulkan times: the transformer's Linear at
// 512² and at 1024² (4608 rows), and its attention, divided by scale as tuning does.
func VulkanWorkloads(scale int) []webgpu.Workload {
	d := max(scale, 1)
	m := webgpu.ScaledModelWorkloads(d)
	large := webgpu.LinearWorkload(max(4608/d, 1), max(3072/d, 1), max(9216/d, 1), true) // webgpu.LargeLinearWorkload's shape
	return []webgpu.Workload{m[webgpu.FamilyLinear], large, m[webgpu.FamilyAttention]}
}

// CompareVulkan times the Vulkan backend (exact precision) against the WebGPU device w on the
// same card and the same work, checks that their outputs agree, and records the result, keyed
// on the card, the Vulkan driver and both backends' kernels, for the default rule: Vulkan is
// then the card's automatic default only when measured faster (vulkanVerdict). Tune w first:
// the record names its tuning. A card without a Vulkan device, or one that fails to open, is
// not an error: Note says so.
func CompareVulkan(ctx context.Context, w *webgpu.Backend, opts CompareOptions) (*VulkanComparison, error) {
	res := &VulkanComparison{}
	if !vulkan.Compiled { // macOS, or no cgo: nothing to compare, nothing to say
		return res, nil
	}
	ads, err := webgpu.AdapterDetails()
	if err != nil {
		return nil, fmt.Errorf("backends: Vulkan comparison: %w", err)
	}
	a := w.Adapter()
	if a.Index() >= len(ads) || ads[a.Index()].Key() != a.Key() {
		return nil, fmt.Errorf("backends: Vulkan comparison: adapter %s no longer listed", a.Info.Name)
	}
	vks, err := vulkan.Identities()
	if err != nil {
		res.Note = err.Error()
		return res, nil
	}
	m := pairVulkan(a.Index(), ads, vks)
	if m < 0 {
		res.Note = "no Vulkan device for this card"
		return res, nil
	}
	res.VulkanID, res.VulkanName = fmt.Sprintf("vulkan:%d", m), vks[m].Name
	st := vulkanState{VulkanID: res.VulkanID, Record: loadVulkanRecord("", a.Key()),
		Key: recordKey{Adapter: a.Key(), Vulkan: vks[m].Key(), VulkanKernels: vulkan.KernelHash(), WebGPUKernels: currentTuning(a)}}
	if st.Record != nil && !opts.Force && !opts.NoSave && st.Record.key() == st.Key && st.Key.WebGPUKernels != "" {
		res.Record, res.Saved, res.Cached = st.Record, true, true
		res.Faster, res.Why = vulkanVerdict(st)
		return res, nil
	}
	vb, err := vulkan.New(vulkan.Options{Device: m}) // exact precision: fast is never a default
	if err != nil {
		res.Note = fmt.Sprintf("cannot open %s: %v", res.VulkanID, err)
		return res, nil
	}
	defer vb.Close()
	rec, err := timeBoth(ctx, w, vb, opts)
	if err != nil {
		return nil, err
	}
	rec.Adapter, rec.Name, rec.Vulkan = a.Key(), a.Info.Name, st.Key.Vulkan
	rec.VulkanKernels, rec.WebGPUKernels = st.Key.VulkanKernels, st.Key.WebGPUKernels
	res.Record = rec
	res.Faster, res.Why = timeVerdict(rec)
	if !opts.NoSave && rec.WebGPUKernels != "" {
		if err := saveVulkanRecord("", rec); err != nil {
			return res, err
		}
		res.Saved = true
	}
	return res, nil
}

// timeBoth times each workload on w and v (alternating, the same seeded data on both) and
// compares their outputs.
func timeBoth(ctx context.Context, w, v gpu.Backend, opts CompareOptions) (*VulkanRecord, error) {
	ws := opts.Workloads
	if ws == nil {
		ws = VulkanWorkloads(opts.Scale)
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = 30 * time.Second
	}
	reps := opts.Reps
	if reps <= 0 {
		reps = 3
	}
	share := budget / time.Duration(2*max(len(ws), 1))
	rec := &VulkanRecord{Version: vulkanRecordVersion, Measured: time.Now().UTC().Truncate(time.Second)}
	for _, wl := range ws {
		tw, ow, err := timeOn(ctx, w, wl, reps, share)
		if err != nil {
			return nil, fmt.Errorf("backends: Vulkan comparison: WebGPU: %w", err)
		}
		tv, ov, err := timeOn(ctx, v, wl, reps, share)
		if err != nil {
			return nil, fmt.Errorf("backends: Vulkan comparison: Vulkan: %w", err)
		}
		rec.RelL2 = max(rec.RelL2, relDiff(ov, ow))
		rec.Work = append(rec.Work, WorkTime{Name: wl.Name, WebGPU: tw.Seconds(), Vulkan: tv.Seconds()})
	}
	return rec, nil
}

// timeOn runs wl once on b for its output, then times it (webgpu.Prepared.Time).
func timeOn(ctx context.Context, b gpu.Backend, wl webgpu.Workload, reps int, budget time.Duration) (time.Duration, []float32, error) {
	p, err := wl.Prepare(b)
	if err != nil {
		return 0, nil, err
	}
	defer p.Free()
	out, err := p.Output()
	if err != nil {
		return 0, nil, err
	}
	d, err := p.Time(ctx, reps, budget)
	if err != nil {
		return 0, nil, err
	}
	if d <= 0 {
		return 0, nil, fmt.Errorf("%s: timing returned no time", wl.Name)
	}
	return d, out, nil
}

// relDiff is ‖a − ref‖/‖ref‖ (+Inf for a non-finite a or mismatched lengths).
func relDiff(a, ref []float32) float64 {
	if len(a) != len(ref) {
		return math.Inf(1)
	}
	var num, den float64
	for i := range a {
		x := float64(a[i])
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return math.Inf(1)
		}
		d := x - float64(ref[i])
		num += d * d
		den += float64(ref[i]) * float64(ref[i])
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// TinyVulkanWorkloads are VulkanWorkloads' kinds of work on webgpu.TinyWorkloads' small shapes
// (tests and `tune --quick` on software devices).
func TinyVulkanWorkloads() []webgpu.Workload {
	t := webgpu.TinyWorkloads()
	return []webgpu.Workload{t[webgpu.FamilyLinear], t[webgpu.FamilyAttention]}
}
