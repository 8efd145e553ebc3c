//go:build cgo

package webgpu

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kleinbild/gpu"
)

// fmaWGSL measures the f32 FMA rate: every invocation runs iters steps of 8 independent vec4
// FMA chains (32 lanes: enough independent work to hide the FMA latency) and writes one sum,
// so that nothing is dead code.
const fmaWGSL = `
struct P { iters: u32, n: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let i = (wg.y * nwg.x + wg.x) * 256u + li;
	let s = f32(i & 1023u) * 1e-6;
	var a0 = vec4<f32>(s, s + 0.1, s + 0.2, s + 0.3);
	var a1 = a0 + 0.01; var a2 = a0 + 0.02; var a3 = a0 + 0.03;
	var a4 = a0 + 0.04; var a5 = a0 + 0.05; var a6 = a0 + 0.06; var a7 = a0 + 0.07;
	let m = vec4<f32>(0.9999);
	let c = vec4<f32>(1e-4);
	for (var k = 0u; k < p.iters; k = k + 1u) {
		a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
		a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
	}
	if (i < p.n) {
		out[i] = dot(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7, vec4<f32>(1.0));
	}
}
`

var fmaKernel = kernel{name: "fma-peak", src: fmaWGSL, nOut: 1, nIn: 0}

// fmaFLOPsPerStep is the FLOPs of one loop step of one invocation: 8 vec4 FMAs.
const fmaFLOPsPerStep = 8 * 4 * 2

// MeasureFMA measures the device's f32 FMA rate in GFLOP/s with fmaWGSL: the best of a few
// timed batches of dispatches, each waited for with Sync (wall time). quick uses a small grid
// (software adapters); else a grid large enough to fill any current GPU.
func (b *Backend) MeasureFMA(ctx context.Context, quick bool) (float64, error) {
	if quick {
		return b.measureFMA(ctx, 32, 256, 2)
	}
	return b.measureFMA(ctx, 4096, 1024, 16)
}

// probeFMA is the short FMA probe that sizes dispatches before tuning has measured the
// kernels (dispatch.go): a grid that fills a large GPU at an eighth of MeasureFMA's work on
// real GPUs (under a millisecond per batch on an H200, tens on integrated ones), the quick
// grid on software adapters.
func (b *Backend) probeFMA(ctx context.Context) (float64, error) {
	if b.info.Kind == gpu.KindSoftware || b.info.Kind == gpu.KindCPU {
		return b.MeasureFMA(ctx, true)
	}
	return b.measureFMA(ctx, 4096, 128, 2)
}

// measureFMA times batches of batch dispatches of groups workgroups running iters steps.
func (b *Backend) measureFMA(ctx context.Context, groups, iters, batch int) (float64, error) {
	n := groups * 256
	out, err := b.Alloc(gpu.F32, n)
	if err != nil {
		return 0, err
	}
	defer b.Free(out)
	queue := func() error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if !b.usable() {
			return errors.New("webgpu: device unusable")
		}
		gx, gy := b.grid(groups)
		for range batch {
			c := b.newCall("MeasureFMA")
			c.out(out, 0, n)
			c.run(&fmaKernel, "f32", []uint32{uint32(iters), uint32(n)}, gx, gy, 1)
		}
		return nil
	}
	flops := float64(n) * float64(iters) * fmaFLOPsPerStep * float64(batch)
	var best time.Duration
	for rep := 0; rep < 4; rep++ { // the first compiles and warms up
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t := time.Now()
		if err := queue(); err != nil {
			return 0, err
		}
		if err := b.Sync(); err != nil {
			return 0, fmt.Errorf("webgpu: FMA rate: %w", err)
		}
		if d := time.Since(t); rep > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	return flops / best.Seconds() / 1e9, nil
}
