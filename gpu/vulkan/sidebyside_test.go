//go:build cgo && sidebyside && linux && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/webgpu"
)

// The side-by-side benchmark (go test -tags sidebyside -bench SideBySide ./gpu/vulkan): the
// same Linear and attention shapes on this backend and on WebGPU, each backend's default
// kernels, alternating backend per shape so that a change of load hits both. On lavapipe,
// where both run on the same llvmpipe, the ratio compares the shaders; a card may rank them
// differently. Behind a build tag so that the vulkan package's tests do not link wgpu.

// sbsLinear are Linear's shapes (rows × in → out, bf16 weights): klein-4B's at 256² (768
// tokens), hidden 3072 and MLP 9216, and a 256-row product.
var sbsLinear = [][3]int{{256, 3072, 3072}, {768, 3072, 9216}, {768, 9216, 3072}}

// sbsAttn are the attention shapes: klein-4B's joint attention at 1536 tokens (24 heads of
// 128 in the model; 2 here, every head costing the same) and the VAE's head dim 512.
var sbsAttn = []struct {
	name string
	p    gpu.AttnParams
}{
	{"klein-1536-h2", gpu.AttnParams{SeqQ: 1536, SeqK: 1536, Heads: 2, HeadDim: 128}},
	{"klein-768-h2", gpu.AttnParams{SeqQ: 768, SeqK: 768, Heads: 2, HeadDim: 128}},
	{"vae-1024-d512", gpu.AttnParams{SeqQ: 1024, SeqK: 1024, Heads: 1, HeadDim: 512}},
}

// sbsBackends opens both backends on their default devices, skipping the benchmark when
// either is missing.
func sbsBackends(bm *testing.B) []sbsBackend {
	vk, err := open(Options{Device: -1})
	if err != nil {
		bm.Skip(err)
	}
	bm.Cleanup(func() { vk.Close() })
	wg, err := webgpu.New(webgpu.Options{Adapter: -1})
	if err != nil {
		bm.Skip(err)
	}
	bm.Cleanup(func() { wg.Close() })
	return []sbsBackend{{"vulkan", vk, func() { vk.linearScalar = false }},
		{"vulkan-scalar", vk, func() { vk.linearScalar = true }}, {"webgpu", wg, func() {}}}
}

// sbsBackend is a backend of the side-by-side benchmark, with the setting it runs under
// (vulkan-scalar: Linear's 128-wide tile without the vector-load kernels).
type sbsBackend struct {
	name string
	b    gpu.Backend
	set  func()
}

func sbsRand(r *rand.Rand, n int, std float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(std * r.NormFloat64())
	}
	return v
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// sbsTime runs f once (compiling its kernels), then bm.N times, each followed by a sync,
// and reports flops per run as GFLOP/s of wall time and per CPU second of the process (on
// a software device the work of every thread, which a loaded machine does not stretch as
// it stretches wall time).
func sbsTime(bm *testing.B, b gpu.Backend, flops float64, f func()) {
	f()
	if err := b.Sync(); err != nil {
		bm.Fatal(err)
	}
	bm.ResetTimer()
	cpu0 := cpuTime()
	for range bm.N {
		f()
		if err := b.Sync(); err != nil {
			bm.Fatal(err)
		}
	}
	total := flops * float64(bm.N) / 1e9
	bm.ReportMetric(total/bm.Elapsed().Seconds(), "GFLOP/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		bm.ReportMetric(total/cpu.Seconds(), "GFLOP/cpu-s")
	}
}

// BenchmarkSideBySideLinear runs sbsLinear's products on both backends; GFLOP/s counts
// 2·rows·in·out.
func BenchmarkSideBySideLinear(bm *testing.B) {
	backends := sbsBackends(bm)
	for _, s := range sbsLinear {
		rows, in, out := s[0], s[1], s[2]
		r := rand.New(rand.NewPCG(1, 2))
		xs := sbsRand(r, rows*in, 1)
		wf := sbsRand(r, out*in, 0.02)
		bits := make([]uint16, len(wf))
		for i, f := range wf {
			bits[i] = uint16(f32u(f) >> 16)
		}
		for _, be := range backends {
			bm.Run(fmt.Sprintf("%dx%d-%d/%s", rows, in, out, be.name), func(bm *testing.B) {
				b := be.b
				be.set()
				x, err := gpu.FromHost(b, xs, rows, in)
				if err != nil {
					bm.Fatal(err)
				}
				w, err := b.WeightBF16(bits, out, in)
				if err != nil {
					bm.Fatal(err)
				}
				y, err := b.Alloc(gpu.F32, rows, out)
				if err != nil {
					bm.Fatal(err)
				}
				defer func() {
					for _, t := range []gpu.Tensor{x, w, y} {
						b.Free(t)
					}
				}()
				sbsTime(bm, b, 2*float64(rows)*float64(in)*float64(out), func() { b.Linear(y, x, w, gpu.Tensor{}, rows) })
			})
		}
	}
}

// BenchmarkSideBySideAttention runs sbsAttn's shapes on both backends, reporting useful
// GFLOP/s (usefulAttnFLOPs).
func BenchmarkSideBySideAttention(bm *testing.B) {
	backends := sbsBackends(bm)
	backends = append(backends[:1], backends[2:]...) // Linear's setting is moot
	for _, s := range sbsAttn {
		p := s.p.WithDefaults()
		r := rand.New(rand.NewPCG(1, 2))
		qs, ks, vs := sbsRand(r, p.SeqQ*p.QStride, 1), sbsRand(r, p.SeqK*p.KStride, 1), sbsRand(r, p.SeqK*p.VStride, 1)
		for _, be := range backends {
			bm.Run(s.name+"/"+be.name, func(bm *testing.B) {
				b := be.b
				q, _ := gpu.FromHost(b, qs, len(qs))
				k, _ := gpu.FromHost(b, ks, len(ks))
				v, _ := gpu.FromHost(b, vs, len(vs))
				o, err := b.Alloc(gpu.F32, p.SeqQ*p.OutStride)
				if err != nil {
					bm.Fatal(err)
				}
				defer func() {
					for _, t := range []gpu.Tensor{q, k, v, o} {
						b.Free(t)
					}
				}()
				sbsTime(bm, b, usefulAttnFLOPs(p), func() { b.Attention(o, q, k, v, p) })
			})
		}
	}
}
