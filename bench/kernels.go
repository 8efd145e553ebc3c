package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/webgpu"
)

// KernelOptions configure RunKernels.
type KernelOptions struct {
	Backend gpu.Backend
	// Quick shrinks every shape (sequence lengths, widths and image sides by 16) so that a
	// software adapter finishes in well under a minute; the rows keep the real shapes' model
	// labels.
	Quick bool
	// Reps is the most timed runs per kernel (0: 3), within about 5 s each.
	Reps int
	Log  func(format string, args ...any)
	// Out, when set, receives the table as it is measured: the device's rates, then each row
	// as soon as its kernel is timed, then the device peak (WriteTable prints it whole).
	Out io.Writer
}

// KernelReport is the outcome of RunKernels; it marshals to JSON.
type KernelReport struct {
	Device string `json:"device"`
	Quick  bool   `json:"quick"`
	// FMAGFLOPS is the measured f32 FMA rate (0 where the backend has no such measurement:
	// CPU backends); CopyGBPS the copy bandwidth (bytes read plus written per second, /1e9).
	FMAGFLOPS float64        `json:"fma_gflops"`
	CopyGBPS  float64        `json:"copy_gbps"`
	Kernels   []KernelResult `json:"kernels"`
	// DevicePeak is the most memory the backend held (gpu.Backend.Memory) during the
	// measurements, in bytes.
	DevicePeak int64 `json:"device_peak_bytes"`
}

// KernelResult is one kernel at one shape.
type KernelResult struct {
	Model   string  `json:"model"`   // "klein-4B 1024²", "Qwen3 512 tokens", "VAE 1024²"
	Kernel  string  `json:"kernel"`  // the workload's name (its shape)
	Variant string  `json:"variant"` // the variant the backend runs ("" for CPU backends)
	Seconds float64 `json:"seconds"`
	GFLOP   float64 `json:"gflop"`
	GFLOPS  float64 `json:"gflops"`
	// PctPeak is GFLOPS as a percentage of FMAGFLOPS (0 when that is unknown).
	PctPeak float64 `json:"pct_peak"`
	// Error is why the kernel could not be measured (the table goes on); "" when it was.
	Error string `json:"error,omitempty"`
}

// kernelCase is one row of the kernel table.
type kernelCase struct {
	model string
	w     webgpu.Workload
}

// kernelCases lists the model's real kernel shapes (see KernelOptions.Quick for the scaled
// ones): klein-4B's transformer (hidden 3072, 24 heads of 128, MLP 9216, 512 text tokens) at
// 256², 512² and 1024²; the Qwen3-4B text encoder (hidden 2560, 32 query and 8 key/value
// heads of 128, MLP 9728) at 512 tokens; the VAE decoder at 1024² (its one-head attention of
// dim 512 over the 128×128 latent, and 3×3 convolutions at the widest and the largest
// resolution).
func kernelCases(quick bool) []kernelCase {
	d, img := 1, 1 // divisors of widths/sequences and of image sides
	if quick {
		d, img = 16, 16
	}
	var cs []kernelCase
	for _, px := range []int{256, 512, 1024} {
		model := fmt.Sprintf("klein-4B %d²", px)
		tok := (512 + (px/16)*(px/16)) / d
		cs = append(cs,
			kernelCase{model, webgpu.LinearWorkload(tok, 3072/d, 3*3072/d, true)},
			kernelCase{model, webgpu.LinearWorkload(tok, 3072/d, 2*9216/d, true)},
			kernelCase{model, webgpu.LinearWorkload(tok, 9216/d, 3072/d, true)},
			kernelCase{model, webgpu.AttentionWorkload(gpu.AttnParams{SeqQ: tok, SeqK: tok, Heads: 24 / min(d, 8), KVHeads: 24 / min(d, 8), HeadDim: 128})})
	}
	q := 512 / d
	cs = append(cs,
		kernelCase{"Qwen3 512 tokens", webgpu.LinearWorkload(q, 2560/d, 2*9728/d, true)},
		kernelCase{"Qwen3 512 tokens", webgpu.LinearWorkload(q, 9728/d, 2560/d, true)},
		kernelCase{"Qwen3 512 tokens", webgpu.AttentionWorkload(gpu.AttnParams{SeqQ: q, SeqK: q, Heads: 32 / d, KVHeads: max(8/d, 1), HeadDim: 128, Causal: true})})
	lat := 128 / img // the VAE's latent side at 1024²
	conv := func(c, side int) webgpu.Workload {
		return webgpu.ConvWorkload(gpu.ConvParams{InC: c, InH: side, InW: side, KH: 3, KW: 3, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}, c)
	}
	cs = append(cs,
		kernelCase{"VAE 1024²", webgpu.AttentionWorkload(gpu.AttnParams{SeqQ: lat * lat, SeqK: lat * lat, Heads: 1, KVHeads: 1, HeadDim: 512})},
		kernelCase{"VAE 1024²", conv(512/d, lat)},
		kernelCase{"VAE 1024²", conv(128/d, 1024/img)})
	return cs
}

// variantOf is implemented by backends with kernel variants (webgpu).
type variantOf interface{ Variant(family string) string }

// fmaMeter is implemented by backends that can measure their f32 FMA rate (webgpu).
type fmaMeter interface {
	MeasureFMA(ctx context.Context, quick bool) (float64, error)
}

// RunKernels measures the device's FMA rate and copy bandwidth and then each kernel of
// kernelCases: the variant run, the best time and GFLOP/s, and the share of the FMA rate.
func RunKernels(ctx context.Context, opts KernelOptions) (*KernelReport, error) {
	b := opts.Backend
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	reps := opts.Reps
	if reps <= 0 {
		reps = 3
	}
	b.ResetPeak()
	rep := &KernelReport{Device: b.Info().Name, Quick: opts.Quick}
	if m, ok := b.(fmaMeter); ok {
		logf("Measuring the f32 FMA rate")
		g, err := m.MeasureFMA(ctx, opts.Quick)
		if err != nil {
			return nil, fmt.Errorf("bench: FMA rate: %w", err)
		}
		rep.FMAGFLOPS = g
	}
	logf("Measuring the copy bandwidth")
	bw, err := copyBandwidth(ctx, b, opts.Quick)
	if err != nil {
		return nil, fmt.Errorf("bench: copy bandwidth: %w", err)
	}
	rep.CopyGBPS = bw
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	io.WriteString(out, rep.header())
	for _, c := range kernelCases(opts.Quick) {
		logf("%s: %s", c.model, c.w.Name)
		r := measureKernel(ctx, b, c, reps)
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("bench: %w", err)
		}
		if rep.FMAGFLOPS > 0 {
			r.PctPeak = 100 * r.GFLOPS / rep.FMAGFLOPS
		}
		rep.Kernels = append(rep.Kernels, r)
		io.WriteString(out, r.line())
	}
	rep.DevicePeak = b.Memory().Peak
	fmt.Fprintf(out, "%s\n\n", rep.peakLine())
	return rep, nil
}

// measureKernel times c on b; a failure (a shape beyond the device's limits, an allocation
// the device refuses) is the row's Error, and the backend's error is cleared for the next
// row.
func measureKernel(ctx context.Context, b gpu.Backend, c kernelCase, reps int) KernelResult {
	r := KernelResult{Model: c.model, Kernel: c.w.Name, GFLOP: c.w.FLOPs / 1e9}
	if v, ok := b.(variantOf); ok {
		r.Variant = v.Variant(c.w.Family)
	}
	p, err := c.w.Prepare(b)
	if err == nil {
		var d time.Duration
		d, err = p.Time(ctx, reps, 5*time.Second)
		p.Free()
		r.Seconds = d.Seconds()
	}
	if err != nil {
		_ = b.Sync() // the sticky error is the one just reported
		r.Error = err.Error()
		return r
	}
	r.GFLOPS = r.GFLOP / r.Seconds
	return r
}

// copyBandwidth times Copy between two F32 tensors of 256 MiB (quick: 16 MiB) and returns
// (bytes read + bytes written)/s in GB/s, best of 3 after a warm-up.
func copyBandwidth(ctx context.Context, b gpu.Backend, quick bool) (float64, error) {
	n := 64 << 20
	if quick {
		n = 4 << 20
	}
	h := gpu.Held{B: b}
	defer h.Free()
	src := h.Keep(gpu.FromHost(b, make([]float32, n), n))
	dst := h.Keep(b.Alloc(gpu.F32, n))
	if h.Err != nil {
		return 0, h.Err
	}
	var best time.Duration
	for i := 0; i < 4; i++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t := time.Now()
		b.Copy(dst, src)
		if err := b.Sync(); err != nil {
			return 0, err
		}
		if d := time.Since(t); i > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	return 2 * 4 * float64(n) / best.Seconds() / 1e9, nil
}

// WriteTable prints the kernel table: the device's rates, then one line per kernel.
func (r *KernelReport) WriteTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.header())
	for _, k := range r.Kernels {
		b.WriteString(k.line())
	}
	fmt.Fprintf(&b, "%s\n\n", r.peakLine())
	_, err := io.WriteString(w, b.String())
	return err
}

// header is the table's head: the device, its FMA rate and copy bandwidth, the columns.
func (r *KernelReport) header() string {
	fma := "not measured (CPU backend)"
	if r.FMAGFLOPS > 0 {
		fma = fmt.Sprintf("%.1f GFLOP/s", r.FMAGFLOPS)
	}
	quick := ""
	if r.Quick {
		quick = " (quick: shapes scaled down, labels name the real ones)"
	}
	return fmt.Sprintf("Kernels on %s%s\nf32 FMA peak: %s; copy bandwidth: %.1f GB/s\n\n", r.Device, quick, fma, r.CopyGBPS) +
		fmt.Sprintf("%-18s %-46s %-32s %10s %9s %7s\n", "model", "kernel", "variant", "ms", "GFLOP/s", "% peak")
}

// peakLine is the table's last line: the device memory the measurements held at most.
func (r *KernelReport) peakLine() string {
	return fmt.Sprintf("device peak: %.1f MB", float64(r.DevicePeak)/1e6)
}

// line is the kernel's row; a kernel that failed shows its error.
func (k KernelResult) line() string {
	v := k.Variant
	if v == "" {
		v = "-"
	}
	if k.Error != "" {
		return fmt.Sprintf("%-18s %-46s %-32s error: %s\n", k.Model, k.Kernel, v, k.Error)
	}
	pct := "-"
	if k.PctPeak > 0 {
		pct = fmt.Sprintf("%.1f", k.PctPeak)
	}
	return fmt.Sprintf("%-18s %-46s %-32s %10.2f %9.2f %7s\n", k.Model, k.Kernel, v, 1e3*k.Seconds, k.GFLOPS, pct)
}
