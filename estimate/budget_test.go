package estimate

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kleinbild/engine"
	"kleinbild/engine/flux2"
	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/source"
	"kleinbild/engine/tokenizer"
	"kleinbild/engine/vae"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/gpu/cpu"
	"kleinbild/weights/golden"
)

const gB = 1_000_000_000

func preset(t *testing.T, name string, distilled bool) Model {
	t.Helper()
	m, err := Preset(name, distilled)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

func TestPresetWeightSizes(t *testing.T) {
	// Sizes of the published bf16 files (SPEC.md: transformer ~7.75 GB, VAE ~168 MB, encoder
	// ~8 GB for 4B; Qwen3-8B is 8.19 B parameters).
	m4 := preset(t, "klein-4B", true)
	m9 := preset(t, "klein-9B", true)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"4B transformer", float64(m4.transformerBytes()), 7.75e9},
		{"VAE", float64(m4.vaeBytes()), 168e6},
		{"4B text encoder", float64(m4.encoderFileBytes()), 8.04e9},
		{"9B text encoder", float64(m9.encoderFileBytes()), 16.38e9},
		{"9B transformer", float64(m9.transformerBytes()), 18.1e9},
	} {
		if e := relErr(c.got, c.want); e > 0.02 {
			t.Errorf("%s: %.4g bytes, want %.4g (%.1f%% off)", c.name, c.got, c.want, 100*e)
		}
	}
	// The encoder runs 27 of 36 layers: about 5.45 GB of the 8 GB are read per prompt.
	if got := float64(m4.encoderTouchedBytes()); relErr(got, 27*100.9e6*2) > 0.01 {
		t.Errorf("4B encoder touched bytes %.4g", got)
	}
	if _, err := Preset("klein-2B", true); err == nil {
		t.Error("unknown preset accepted")
	}
}

func TestEstimate4BAgainstRAM(t *testing.T) {
	m := preset(t, "klein-4B", true)
	want := map[int]map[uint64]Verdict{
		256:  {32 * gB: Fits, 16 * gB: Tight, 8 * gB: Tight, 3 * gB: DoesNotFit},
		512:  {32 * gB: Fits, 16 * gB: Tight, 8 * gB: Tight, 3 * gB: DoesNotFit},
		1024: {32 * gB: Fits, 16 * gB: Tight, 8 * gB: DoesNotFit, 3 * gB: DoesNotFit},
	}
	for side, byRAM := range want {
		for avail, verdict := range byRAM {
			r, err := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: side, Height: side}}}, Machine{AvailableBytes: avail, TotalBytes: 64 * gB})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != verdict {
				t.Errorf("%d² with %d GB: %s, want %s\n%s", side, avail/gB, r.Verdict, verdict, r.Message)
			}
			if !strings.HasPrefix(strings.ToLower(r.Message), string(r.Verdict)) {
				t.Errorf("message does not start with the verdict: %s", r.Message)
			}
			if r.Verdict == Tight && avail == 16*gB && !strings.Contains(r.Message, "text encoder") {
				t.Errorf("16 GB: the message should say the text encoder is released: %s", r.Message)
			}
		}
	}
	r, _ := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, Machine{})
	if r.Verdict != Unknown || !strings.Contains(r.Message, "unknown") {
		t.Errorf("unknown RAM: %s %s", r.Verdict, r.Message)
	}
}

func TestEstimate4BNumbers(t *testing.T) {
	m := preset(t, "klein-4B", true)
	type want struct {
		tokens                 int
		scratch, decode        float64 // the dominant buffers
		peakGB, activationGB   float64
		denoiseTFLOP, decTFLOP float64
	}
	for side, w := range map[int]want{
		// Transformer scratch: S·(7·3072 + 3·9216 + 2·128) floats; VAE: 3 buffers of
		// 256 channels at full resolution (the last up block's input). At 256² the
		// activations are 1.08 GB: the CPU backend's bf16 weight tiles (up to 32 MiB each
		// for the transformer and the text encoder, gpu/cpu LinearScratchFloats) are
		// counted as they are since issue 10, where the copy here had 256-row tiles (1.0 GB).
		256:  {768, 768 * 49408 * 4, 3 * 256 * 256 * 256 * 4, 14.4, 1.08, 19.7, 0.62},
		512:  {1536, 1536 * 49408 * 4, 3 * 256 * 512 * 512 * 4, 15.2, 1.8, 40.7, 2.52},
		1024: {4608, 4608 * 49408 * 4, 3 * 256 * 1024 * 1024 * 4, 18.25, 4.88, 139.3, 10.47},
	} {
		r, err := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: side, Height: side}}}, Machine{AvailableBytes: 64 * gB})
		if err != nil {
			t.Fatal(err)
		}
		if r.Tokens != w.tokens || r.Steps != 4 || r.Passes != 1 {
			t.Errorf("%d²: %d tokens, %d steps × %d passes", side, r.Tokens, r.Steps, r.Passes)
		}
		// Scratch estimates include kernel tiles (a 33 MB bf16 weight tile of the fused
		// single-block projection, 2688 rows of 3072) and latents on top of the big buffers.
		const linearTile = 2688 * 3072 * 4
		if got := float64(r.Memory.TransformerScratch); got < w.scratch+linearTile || got > w.scratch*1.1+linearTile {
			t.Errorf("%d²: transformer scratch %.4g, want %.4g + tiles", side, got, w.scratch)
		}
		if got := float64(r.Memory.DecodeScratch); got < w.decode || got > w.decode*1.05+20e6 {
			t.Errorf("%d²: decode scratch %.4g, want %.4g + tiles", side, got, w.decode)
		}
		t.Logf("%d²: peak %.3f GB, activations %.3f GB, transformer scratch %.3f GB, decode %.3f GB", side, float64(r.PeakBytes)/gB, float64(r.ActivationBytes)/gB, float64(r.Memory.TransformerScratch)/gB, float64(r.Memory.DecodeScratch)/gB)
		if math.Abs(float64(r.PeakBytes)/gB-w.peakGB) > 0.06 || math.Abs(float64(r.ActivationBytes)/gB-w.activationGB) > 0.06 {
			t.Errorf("%d²: peak %.2f GB activations %.2f GB, want %.1f / %.1f", side, float64(r.PeakBytes)/gB, float64(r.ActivationBytes)/gB, w.peakGB, w.activationGB)
		}
		if r.PeakBytes != r.Memory.TransformerWeights+r.Memory.VAEWeights+r.Memory.EncoderWeights+r.ActivationBytes {
			t.Errorf("%d²: peak is not weights + activations", side)
		}
		if relErr(r.FLOPs.Denoise/1e12, w.denoiseTFLOP) > 0.01 || relErr(r.FLOPs.Decode/1e12, w.decTFLOP) > 0.01 {
			t.Errorf("%d²: denoise %.4g TFLOP, decode %.4g TFLOP", side, r.FLOPs.Denoise/1e12, r.FLOPs.Decode/1e12)
		}
		// SPEC.md's cost model: 2·3.9e9·S + 4·S²·3072 per block and step. It counts every
		// weight per token, but a token passes one stream of the double blocks, so the
		// engine does about 21% fewer linear FLOPs than that.
		s := float64(r.Tokens)
		spec := 4 * (2*3.9e9*s + 25*4*s*s*3072)
		if ratio := r.FLOPs.Denoise / spec; ratio < 0.75 || ratio > 0.9 {
			t.Errorf("%d²: denoise FLOPs %.3g are %.2f of SPEC's %.3g", side, r.FLOPs.Denoise, ratio, spec)
		}
		// SPEC: ≈ 2.8 TFLOP per prompt through the 27 layers of Qwen3-4B.
		if relErr(r.FLOPs.Encode, 2.8e12) > 0.05 {
			t.Errorf("encode %.4g FLOPs, want ≈ 2.8e12", r.FLOPs.Encode)
		}
	}
}

func TestEstimateTimeFromCalibration(t *testing.T) {
	m := preset(t, "klein-4B", false) // base: 50 steps with guidance (2 passes)
	rates := Calibration{Backend: "x", LinearGFLOPS: 100, AttentionGFLOPS: 50, ConvGFLOPS: 80}
	r, err := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, Machine{AvailableBytes: 64 * gB, Rates: rates})
	if err != nil {
		t.Fatal(err)
	}
	if r.Steps != 50 || r.Passes != 2 {
		t.Fatalf("base model: %d steps, %d passes", r.Steps, r.Passes)
	}
	step := transformerWork(m.Transformer, 512, 1024)
	want := 100 * (step.Linear/100e9 + step.Attention/50e9)
	if relErr(r.PhaseSeconds.Denoise, want) > 1e-9 {
		t.Errorf("denoise %.6g s, want %.6g s", r.PhaseSeconds.Denoise, want)
	}
	dec := vaeWork(m.VAE.DecodeLayers(64, 64))
	if want := dec.Conv/80e9 + dec.Linear/100e9 + dec.Attention/50e9; relErr(r.PhaseSeconds.Decode, want) > 1e-9 {
		t.Errorf("decode %.6g s, want %.6g s", r.PhaseSeconds.Decode, want)
	}
	if relErr(r.Seconds, r.PhaseSeconds.Total()) > 1e-12 || r.PhaseSeconds.Encode <= 0 {
		t.Errorf("phases %+v, total %v", r.PhaseSeconds, r.Seconds)
	}
	// Guidance 1 turns CFG off; a cached prompt skips the encoder.
	r2, _ := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512, Guidance: 1}}, PromptCached: true}, Machine{AvailableBytes: 64 * gB, Rates: rates})
	if r2.Passes != 1 || relErr(r2.PhaseSeconds.Denoise, want/2) > 1e-9 && relErr(r2.PhaseSeconds.Denoise, r.PhaseSeconds.Denoise/2) > 1e-9 {
		t.Errorf("guidance 1: %d passes, denoise %.4g s", r2.Passes, r2.PhaseSeconds.Denoise)
	}
	if r2.PhaseSeconds.Encode != 0 || r2.Memory.EncoderWeights == 0 || r2.PeakBytes != r.PeakBytes-r.Memory.EncoderWeights-(r.ActivationBytes-r2.ActivationBytes) {
		t.Errorf("cached prompt: encode %v s, peak %d vs %d", r2.PhaseSeconds.Encode, r2.PeakBytes, r.PeakBytes)
	}
	// No calibration: no time.
	r3, _ := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, Machine{AvailableBytes: 64 * gB})
	if r3.Seconds != 0 {
		t.Errorf("seconds without calibration: %v", r3.Seconds)
	}
}

func TestEstimateReferences(t *testing.T) {
	m := preset(t, "klein-4B", true)
	r0, _ := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, Machine{AvailableBytes: 64 * gB})
	r2, err := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512, References: refPaths(2)}}}, Machine{AvailableBytes: 64 * gB})
	if err != nil {
		t.Fatal(err)
	}
	if r2.RefTokens != 2*1024 || r2.Tokens != r0.Tokens+2048 || r2.FLOPs.References <= 0 || r2.Memory.RefScratch == 0 {
		t.Errorf("2 refs: %d ref tokens, %d tokens, %v ref FLOPs", r2.RefTokens, r2.Tokens, r2.FLOPs.References)
	}
	// A 2048² output's references are downsized to 1024² by the pipeline.
	rb, _ := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 2048, Height: 2048, References: refPaths(1)}}}, Machine{AvailableBytes: 64 * gB})
	if rb.RefTokens != 4096 {
		t.Errorf("big reference: %d tokens, want 4096", rb.RefTokens)
	}
	rs, _ := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512, References: refPaths(1)}}, RefSizes: []image.Point{{768, 512}}}, Machine{AvailableBytes: 64 * gB})
	if rs.RefTokens != 48*32 {
		t.Errorf("explicit size: %d tokens", rs.RefTokens)
	}
	for _, bad := range []Request{
		{Req: engine.Request{Settings: engine.Settings{Width: 8, Height: 512}}}, {Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512, References: refPaths(9)}}},
		{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512, Steps: 201}}}, {Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512, References: refPaths(1)}}, RefSizes: []image.Point{{0, 512}}},
	} {
		if _, err := Estimate(m, bad, Machine{}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := Estimate(Model{}, Request{}, Machine{}); err == nil {
		t.Error("zero Model accepted")
	}
}

func TestForFolderTinyModel(t *testing.T) {
	m := tinyModel(t)
	if m.Transformer.Hidden() != 64 || m.VAE.BlockOutChannels[0] != 16 || m.Encoder.HiddenSize != 32 {
		t.Fatalf("configs %+v", m)
	}
	if m.TransformerBytes != 870352 || m.VAEBytes != 2777086 || m.EncoderBytes != 10277704 {
		t.Errorf("weight sizes %d %d %d", m.TransformerBytes, m.VAEBytes, m.EncoderBytes)
	}
	r, err := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 256, Height: 256}}}, Machine{AvailableBytes: 8 * gB})
	if err != nil || r.Verdict != Fits {
		t.Errorf("tiny model: %v %v", r.Message, err)
	}
	if _, err := ForFolder(engine.ModelInfo{Dir: t.TempDir(), Problems: []source.Problem{{Path: "model_index.json"}}}); err == nil {
		t.Error("incomplete folder accepted")
	}
}

// countingBLAS counts the FLOPs of every GEMM (2·m·n·k) of the CPU backend it serves. It
// offers no native bf16 product, so bf16 weights are widened and multiplied by Sgemm too.
type countingBLAS struct {
	cpu.BLAS
	mu    sync.Mutex
	flops float64
}

func (c *countingBLAS) Sgemm(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, cc []float32, ldc int) {
	c.mu.Lock()
	c.flops += 2 * float64(m) * float64(n) * float64(k)
	c.mu.Unlock()
	c.BLAS.Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

func (c *countingBLAS) take() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.flops
	c.flops = 0
	return f
}

// defaultBLAS is the GEMM provider of the default CPU backend.
func defaultBLAS(t *testing.T) cpu.BLAS {
	b, ok := backends.Default().(*cpu.Backend)
	if !ok {
		t.Fatalf("the default backend %T is not a CPU backend", backends.Default())
	}
	return b.BLAS()
}

// The FLOP model must match what the engine actually multiplies: count every GEMM of a
// tiny transformer call and a tiny VAE decode and encode on a CPU backend.
func TestFLOPsMatchTheEngine(t *testing.T) {
	cb := &countingBLAS{BLAS: defaultBLAS(t)}
	b := cpu.New(cb)
	dir := golden.TinyModel(t)

	fm, err := flux2.Load(filepath.Join(dir, "transformer"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer fm.Close()
	c := fm.Config()
	const txt, gh, gw = 40, 8, 12
	in := flux2.HostInput{
		Img: make([]float32, gh*gw*c.InChannels), ImgIDs: flux2.ImageIDs(gh, gw, 0),
		Txt: make([]float32, txt*c.JointAttentionDim), TxtIDs: flux2.TextIDs(txt), Timestep: 0.5,
	}
	cb.take()
	if _, err := fm.ForwardHost(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	got, want := cb.take(), transformerWork(c, txt, gh*gw).Total()
	if relErr(got, want) > 1e-9 {
		t.Errorf("transformer: engine %.6g FLOPs, model %.6g", got, want)
	}

	v, err := vae.Load(filepath.Join(dir, "vae"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	vc := v.Config()
	const lh, lw = 6, 10
	if _, err := v.Decode(context.Background(), make([]float32, vc.LatentChannels*lh*lw), lh, lw, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := cb.take(), vc.DecodeFLOPs(lh, lw).Total(); relErr(got, want) > 1e-9 {
		t.Errorf("VAE decode: engine %.6g FLOPs, model %.6g", got, want)
	}
	if _, err := v.Encode(context.Background(), make([]float32, 3*64*96), 64, 96, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := cb.take(), vc.EncodeFLOPs(64, 96).Total(); relErr(got, want) > 1e-9 {
		t.Errorf("VAE encode: engine %.6g FLOPs, model %.6g", got, want)
	}
}

// The estimate's FLOPs are the model packages' counts (flux2.Config.ForwardFLOPs,
// qwen3.Config.EncodeFLOPs, vae.Config.DecodeFLOPs and EncodeFLOPs) times the passes the
// pipeline makes (engine's default steps and guidance), so that no copy of them can go
// stale here.
func TestFLOPsFromTheModelPackages(t *testing.T) {
	for _, distilled := range []bool{true, false} {
		m := preset(t, "klein-4B", distilled)
		const w, h = 512, 384
		r, err := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: w, Height: h, References: refPaths(1)}}}, Machine{AvailableBytes: 64 * gB})
		if err != nil {
			t.Fatal(err)
		}
		steps, passes := engine.DefaultStepsBase, 2
		if distilled {
			steps, passes = engine.DefaultStepsDistilled, 1
		}
		if r.Steps != steps || r.Passes != passes {
			t.Errorf("distilled %v: %d steps × %d passes, want %d × %d", distilled, r.Steps, r.Passes, steps, passes)
		}
		img := (w/16)*(h/16) + r.RefTokens
		lin, attn := m.Transformer.ForwardFLOPs(tokenizer.MaxLength, img)
		if want := float64(steps*passes) * (lin + attn); relErr(r.FLOPs.Denoise, want) > 1e-12 {
			t.Errorf("denoise %.6g FLOPs, flux2 says %.6g", r.FLOPs.Denoise, want)
		}
		lin, attn = m.Encoder.EncodeFLOPs(tokenizer.MaxLength, slices.Max(qwen3.DefaultLayers))
		if relErr(r.FLOPs.Encode, lin+attn) > 1e-12 {
			t.Errorf("encode %.6g FLOPs, qwen3 says %.6g", r.FLOPs.Encode, lin+attn)
		}
		if want := m.VAE.DecodeFLOPs(h/8, w/8).Total(); relErr(r.FLOPs.Decode, want) > 1e-12 {
			t.Errorf("decode %.6g FLOPs, vae says %.6g", r.FLOPs.Decode, want)
		}
		_, _, rw, rh := imageio.TargetSize(w, h)
		if want := m.VAE.EncodeFLOPs(rh, rw).Total(); r.RefTokens != (rw/16)*(rh/16) || relErr(r.FLOPs.References, want) > 1e-12 {
			t.Errorf("reference: %d tokens, %.6g FLOPs; vae says %.6g for %d×%d", r.RefTokens, r.FLOPs.References, want, rw, rh)
		}
	}
}

// allocated returns the bytes fn allocates on the Go heap. The collector is off and one
// processor runs Go code meanwhile: a collection empties the backend's tile pools, and a
// goroutine moving to another processor misses the pooled buffer; either would count
// refills that the garbage collector reclaims.
func allocated(fn func()) float64 {
	var a, b runtime.MemStats
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return float64(b.TotalAlloc - a.TotalAlloc)
}

// backendPeak returns the most bytes the backend held in tensors while fn ran, above what
// it held before (gpu.Backend.Memory).
func backendPeak(b gpu.Backend, fn func()) float64 {
	before := b.Memory().Resident
	b.ResetPeak()
	fn()
	return float64(b.Memory().Peak - before)
}

// The memory model must match what the engine allocates: the tensors it asks the backend
// for (the backend's own accounting, gpu.Backend.Memory: tight) and everything on the Go
// heap, the CPU backend's pooled tiles included (fresh backends, so that no pooled buffer
// is reused).
func TestScratchMatchesEngineAllocations(t *testing.T) {
	dir := golden.TinyModel(t)
	fresh := func() *cpu.Backend { return cpu.New(defaultBLAS(t)) }

	// VAE decode.
	b := fresh()
	v, err := vae.Load(filepath.Join(dir, "vae"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	vc := v.Config()
	const lh, lw = 24, 40 // a 320×192 image
	latent := make([]float32, vc.LatentChannels*lh*lw)
	walk := vaeDecode(vc, lh, lw)
	decode := func() {
		if _, err := v.Decode(context.Background(), latent, lh, lw, nil); err != nil {
			t.Fatal(err)
		}
	}
	peak := backendPeak(b, decode)
	want := float64(walk.allocatedBytes(int64(vc.LatentChannels*lh*lw + 3*8*lh*8*lw)))
	t.Logf("VAE decode %d×%d: backend peak %.4g bytes, model %.4g", 8*lw, 8*lh, peak, want)
	if e := relErr(want, peak); e > 0.02 {
		t.Errorf("VAE decode holds %.4g bytes of tensors, model says %.4g (%.1f%% off)", peak, want, 100*e)
	}
	if raceEnabled {
		t.Log("the race detector changes sync.Pool reuse: Go heap checks skipped")
	} else if name := b.Name(); name == "purego" {
		t.Logf("the %s backend (gonum) allocates inside its GEMM, which the model does not count: Go heap checks skipped", name)
	} else {
		dv, err := vae.Load(filepath.Join(dir, "vae"), fresh())
		if err != nil {
			t.Fatal(err)
		}
		defer dv.Close()
		got := allocated(func() { dv.Decode(context.Background(), latent, lh, lw, nil) })
		want := float64(walk.bytes(3 * 8 * lh * 8 * lw * 2))
		t.Logf("VAE decode %d×%d: allocates %.4g bytes, model %.4g", 8*lw, 8*lh, got, want)
		if e := relErr(want, got); e > 0.15 {
			t.Errorf("VAE decode allocates %.4g bytes, model says %.4g (%.0f%% off)", got, want, 100*e)
		}
	}

	// Transformer forward.
	b = fresh()
	fm, err := flux2.Load(filepath.Join(dir, "transformer"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer fm.Close()
	c := fm.Config()
	const txt, gh, gw = 512, 32, 32
	in := flux2.HostInput{
		Img: make([]float32, gh*gw*c.InChannels), ImgIDs: flux2.ImageIDs(gh, gw, 0),
		Txt: make([]float32, txt*c.JointAttentionDim), TxtIDs: flux2.TextIDs(txt), Timestep: 0.5,
	}
	forward := func() {
		if _, err := fm.ForwardHost(context.Background(), in, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := txt + gh*gw
	ioBytes := int64(gh*gw*(c.InChannels+c.OutChannels)+txt*c.JointAttentionDim) * f32 // uploaded input, output
	peak = backendPeak(b, forward)
	want = float64(transformerScratchBytes(c, s) + ioBytes)
	t.Logf("transformer Forward of %d tokens: backend peak %.4g bytes, model %.4g", s, peak, want)
	if e := relErr(want, peak); e > 0.02 {
		t.Errorf("transformer Forward holds %.4g bytes of tensors, model says %.4g (%.1f%% off)", peak, want, 100*e)
	}
	// The activations are kept: a second call allocates only its input and output.
	if again := backendPeak(b, forward); again > 1.01*float64(ioBytes) {
		t.Errorf("second Forward allocates %.4g bytes of tensors, want about %d: the activations were not kept", again, ioBytes)
	}
	if !raceEnabled && b.Name() != "purego" {
		fb := fresh()
		fm2, err := flux2.Load(filepath.Join(dir, "transformer"), fb)
		if err != nil {
			t.Fatal(err)
		}
		defer fm2.Close()
		got := allocated(func() { fm2.ForwardHost(context.Background(), in, nil) })
		want := float64(transformerScratchBytes(c, s) + transformerKernelBytes(c, s) + ioBytes)
		t.Logf("transformer Forward of %d tokens: allocates %.4g bytes, model %.4g", s, got, want)
		if e := relErr(want, got); e > 0.15 {
			t.Errorf("transformer Forward allocates %.4g bytes, model says %.4g (%.0f%% off)", got, want, 100*e)
		}
	}

	// Text encoder.
	b = fresh()
	enc, err := qwen3.Load(filepath.Join(dir, "text_encoder"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	qc := enc.Config()
	ids, mask := make([]int, TextTokens), make([]int, TextTokens)
	for i := range 20 {
		ids[i], mask[i] = 100+i, 1
	}
	peak = backendPeak(b, func() {
		if _, err := enc.Encode(context.Background(), ids, mask, qwen3.DefaultLayers, nil); err != nil {
			t.Fatal(err)
		}
	})
	want = float64(encoderActivationBytes(qc, TextTokens))
	t.Logf("text encoder, %d tokens: backend peak %.4g bytes, model %.4g", TextTokens, peak, want)
	if e := relErr(want, peak); e > 0.05 {
		t.Errorf("text encoder holds %.4g bytes of tensors, model says %.4g (%.1f%% off)", peak, want, 100*e)
	}
}

func TestCalibrateAndStore(t *testing.T) {
	dev := backends.Default()
	small := calibSizes{rows: 16, in: 64, out: 64, seq: 64, heads: 1, ch: 8, side: 16, minTime: time.Millisecond}
	c, err := calibrate(context.Background(), dev, small)
	if err != nil {
		t.Fatal(err)
	}
	if m := dev.Memory(); m.Resident != 0 || m.Peak == 0 {
		t.Errorf("after calibrating, the backend holds %d bytes (peak %d): want all freed", m.Resident, m.Peak)
	}
	if !c.Valid() || c.Backend != dev.Name() || c.Measured.IsZero() {
		t.Fatalf("calibration %+v", c)
	}
	t.Logf("tiny-shape rates: %+v", c)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := calibrate(ctx, dev, small); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}

	path := filepath.Join(t.TempDir(), "kleinbild", "calibration.json")
	if _, err := LoadCalibration(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	measures := 0
	fake := func(context.Context, gpu.Backend) (Calibration, error) {
		measures++
		return Calibration{Backend: dev.Name(), LinearGFLOPS: 150, AttentionGFLOPS: 60, ConvGFLOPS: 90, AttentionScoresPerSec: 5e9, ConvColumnsPerSec: 2e9, ValuesPerSec: 1e9, Measured: time.Unix(1e9, 0).UTC()}, nil
	}
	c1, measured, err := loadOrCalibrate(context.Background(), dev, path, fake)
	if err != nil || !measured || measures != 1 {
		t.Fatalf("first: %+v %v %v", c1, measured, err)
	}
	c2, measured, err := loadOrCalibrate(context.Background(), dev, path, fake)
	if err != nil || measured || measures != 1 || !reflect.DeepEqual(c2, c1) {
		t.Fatalf("second call should load the stored calibration: %+v %v %v", c2, measured, err)
	}
	// Another backend's calibration, or a damaged file, is measured again.
	(Calibration{Backend: "other", LinearGFLOPS: 1, AttentionGFLOPS: 1, ConvGFLOPS: 1}).Save(path)
	if _, measured, _ := loadOrCalibrate(context.Background(), dev, path, fake); !measured {
		t.Error("calibration of another backend reused")
	}
	os.WriteFile(path, []byte(`{"backend": "`+dev.Name()+`", "linear_gflops": -1}`), 0o644)
	if _, err := LoadCalibration(path); err == nil {
		t.Error("invalid rates accepted")
	}
	if _, measured, _ := loadOrCalibrate(context.Background(), dev, path, fake); !measured {
		t.Error("invalid calibration reused")
	}
	if p, err := DefaultCalibrationPath(); err == nil && !strings.HasSuffix(p, filepath.Join("kleinbild", "calibration.json")) {
		t.Errorf("default path %s", p)
	}
}

// refPaths are n reference files for a request; the estimate counts them, never reads them.
func refPaths(n int) []string {
	p := make([]string, n)
	for i := range p {
		p[i] = fmt.Sprintf("ref%d.png", i+1)
	}
	return p
}

// TestEstimateInpaintRequest: an inpainting request is priced at its own size with its
// references, its picture unread, as the same request without the picture.
func TestEstimateInpaintRequest(t *testing.T) {
	m := preset(t, "klein-4B", true)
	plain := engine.Request{Settings: engine.Settings{Prompt: "a cat", Width: 512, Height: 512, References: refPaths(1)}}
	want, err := Estimate(m, Request{Req: plain}, Machine{AvailableBytes: 64 * gB})
	if err != nil {
		t.Fatal(err)
	}
	inp := plain
	inp.Image, inp.Mask, inp.Strength, inp.MaskCrop = "picture.png", "mask.png", 0.6, 32
	got, err := Estimate(m, Request{Req: inp}, Machine{AvailableBytes: 64 * gB})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("inpainting: %+v, want %+v", got, want)
	}
}

// TestEstimateInpaintPicture: with its picture's size known, an inpainting request is priced
// as the pipeline runs it: at the result's size (an 800×600 picture is worked at 800×592),
// the picture's conditioning tokens before the extra reference's, and only the steps its
// strength runs: as a plain 800×592 request with two references and those steps.
func TestEstimateInpaintPicture(t *testing.T) {
	m := preset(t, "klein-4B", true)
	inp := engine.Request{Settings: engine.Settings{Prompt: "a cat", References: refPaths(1), Image: "picture.png", Mask: "mask.png", Strength: 0.5, Steps: 4}}
	got, err := Estimate(m, Request{Req: inp, PictureSize: image.Pt(800, 600)}, Machine{AvailableBytes: 64 * gB})
	if err != nil {
		t.Fatal(err)
	}
	tStart, err := inpaint.StartStep(4, 0.5)
	if err != nil || tStart == 0 {
		t.Fatalf("StartStep(4, 0.5) = %d, %v", tStart, err)
	}
	plain := engine.Request{Settings: engine.Settings{Prompt: "a cat", Width: 800, Height: 592, References: refPaths(2), Steps: 4 - tStart}}
	want, err := Estimate(m, Request{Req: plain}, Machine{AvailableBytes: 64 * gB})
	if err != nil {
		t.Fatal(err)
	}
	if got.Steps != 4-tStart || got.ImageTokens != 50*37 || got.RefTokens != 2*50*37 || !reflect.DeepEqual(got, want) {
		t.Errorf("inpainting an 800×600 picture: %+v, want %+v", got, want)
	}

	// Outpainting 16 px to the left of a 64×48 picture works on the 80×48 canvas.
	out := engine.Request{Settings: engine.Settings{Prompt: "a cat", Image: "picture.png", Outpaint: engine.OutpaintOf(inpaint.Padding{Left: 16})}}
	got, err = Estimate(m, Request{Req: out, PictureSize: image.Pt(64, 48)}, Machine{AvailableBytes: 64 * gB})
	if err != nil {
		t.Fatal(err)
	}
	if got.ImageTokens != 5*3 || got.RefTokens != 5*3 {
		t.Errorf("outpainting to 80×48: %d image and %d reference tokens, want 15 and 15", got.ImageTokens, got.RefTokens)
	}
}
