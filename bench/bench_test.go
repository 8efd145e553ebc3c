package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
	"kleinbild/gpu/backends"
	"kleinbild/randmodel"
	"kleinbild/weights/golden"
)

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// TestTransformerFLOPs checks the count the benchmark uses (flux2.Config.ForwardFLOPs) for
// the real klein-4B shapes against the closed form: every block applies 4d² + 3·d·mlp
// weights per token (a double block's token goes through its own stream's weights only),
// plus the text and image embedders, proj_out, the once-per-pass timestep/modulation
// linears, and 4·L²·d of attention per block. It also counts every weight matrix of the
// checkpoint (flux2.TensorSpecs) with the rows it multiplies, so that a weight the formula
// forgets fails the test.
func TestTransformerFLOPs(t *testing.T) {
	cfg := flux2.Config{PatchSize: 1, InChannels: 128, OutChannels: 128, NumLayers: 5, NumSingleLayers: 20,
		AttentionHeadDim: 128, NumAttentionHeads: 24, JointAttentionDim: 7680, TimestepGuidanceChannels: 256,
		MLPRatio: 3, AxesDimsRope: []int{32, 32, 32, 32}, RopeTheta: 2000, Eps: 1e-6}
	const d, mlp, txt, img = 3072.0, 9216.0, 512.0, 256.0
	l := txt + img
	perToken := 4*d*d + 3*d*mlp
	once := 256*d + d*d + 2*6*d*d + 3*d*d + 2*d*d
	want := 2*(25*perToken*l+7680*d*txt+2*128*d*img+once) + 25*4*l*l*d
	lin, attn := cfg.ForwardFLOPs(txt, img)
	c := costModel{tr: cfg, txt: txt}
	if got := c.step(img); relErr(got, want) > 1e-12 || got != lin+attn {
		t.Errorf("transformer step = %.6g FLOPs, want %.6g", got, want)
	}
	if wantAttn := 25 * 4 * l * l * d; attn != wantAttn {
		t.Errorf("attention %.6g FLOPs, want %.6g", attn, wantAttn)
	}
	var specs float64
	for _, s := range flux2.TensorSpecs(cfg) {
		if len(s.Shape) == 2 {
			specs += 2 * float64(transformerRows(s.Name, txt, img)) * float64(s.Shape[0]) * float64(s.Shape[1])
		}
	}
	if relErr(lin, specs) > 1e-12 {
		t.Errorf("linear %.6g FLOPs, the checkpoint's weights make %.6g", lin, specs)
	}
}

// transformerRows is how many token rows a transformer weight multiplies.
func transformerRows(name string, txt, img int) int {
	switch {
	case strings.HasPrefix(name, "single_transformer_blocks."):
		return txt + img
	case strings.HasPrefix(name, "transformer_blocks."):
		if strings.Contains(name, ".add_") || strings.Contains(name, ".to_add_out.") || strings.Contains(name, ".ff_context.") {
			return txt
		}
		return img
	case strings.HasPrefix(name, "context_embedder."):
		return txt
	case strings.HasPrefix(name, "x_embedder."), strings.HasPrefix(name, "proj_out."):
		return img
	default: // timestep embedder, modulations, norm_out: computed once per pass
		return 1
	}
}

// TestEncoderFLOPs: the tiny Qwen3 layer has 9216 weights; 27 of its 28 layers run, with
// causal attention (2·L²·q_dim per layer: the half of the scores the mask leaves).
func TestEncoderFLOPs(t *testing.T) {
	cfg, err := qwen3.LoadConfig(filepath.Join(golden.TinyModel(t), "text_encoder"))
	if err != nil {
		t.Fatal(err)
	}
	want := 2*512*9216*27.0 + 27*2*512*512*32.0
	c := costModel{te: cfg, txt: 512}
	if got := c.encode(); relErr(got, want) > 1e-12 {
		t.Errorf("encoder FLOPs = %.6g, want %.6g", got, want)
	}
	// The weights of one layer, from the checkpoint's list of tensors.
	var perLayer float64
	for _, s := range qwen3.TensorSpecs(cfg) {
		if strings.HasPrefix(s.Name, "model.layers.0.") && len(s.Shape) == 2 {
			perLayer += float64(s.Shape[0] * s.Shape[1])
		}
	}
	if lin, _ := cfg.EncodeFLOPs(512, 27); lin != 2*512*27*perLayer {
		t.Errorf("linear %.6g FLOPs, the checkpoint's weights make %.6g", lin, 2*512*27*perLayer)
	}
}

// TestVAEDecodeFLOPs counts a two-level decoder by hand (multiply-adds, at a 2×2 latent):
// post_quant 16, conv_in 576, mid resnets 2×4608, attention 1280, level 0 resnets 2×4608 and
// upsampler conv 9216 (at 4×4), level 1 resnets 7424 (with shortcut) + 4608, conv_out 1728.
func TestVAEDecodeFLOPs(t *testing.T) {
	cfg := vae.Config{OutChannels: 3, LatentChannels: 2, BlockOutChannels: []int{4, 8}, LayersPerBlock: 1,
		MidBlockAddAttention: true, UsePostQuantConv: true}
	const want = 2 * (16 + 576 + 9216 + 1280 + 9216 + 9216 + 7424 + 4608 + 1728)
	if got := (costModel{vae: cfg}).decode(2, 2); got != want {
		t.Errorf("VAE decode FLOPs = %v, want %v", got, want)
	}
}

// TestRunTiny benchmarks a tiny random model end to end: three generations of the first size
// (a new prompt, a second new prompt, the first one's again from the embedding cache) and one
// of the second size.
func TestRunTiny(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if _, err := randmodel.Create(context.Background(), dir, randmodel.Options{Variant: randmodel.Tiny, Seed: 1, Tokenizer: golden.TinyModel(t)}); err != nil {
		t.Fatal(err)
	}
	var logged []string
	rep, err := Run(context.Background(), Options{ModelDir: dir, Sizes: []int{64, 32}, Steps: 2, PeakReps: -1,
		Log: func(format string, _ ...any) { logged = append(logged, format) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 4 || len(logged) == 0 {
		t.Fatalf("%d runs, %d log lines; want 4 runs and some lines", len(rep.Runs), len(logged))
	}
	wantPhases := []string{"prepare", "encode", "step 1", "step 2", "decode", "save", "total"}
	for i, r := range rep.Runs {
		var names []string
		for _, p := range r.Phases {
			names = append(names, p.Name)
			if !(p.Seconds >= 0) {
				t.Errorf("%s: phase %s took %v s", r.Label, p.Name, p.Seconds)
			}
		}
		if strings.Join(names, ",") != strings.Join(wantPhases, ",") {
			t.Errorf("%s: phases %v, want %v", r.Label, names, wantPhases)
		}
		if cached := i > 1; r.PromptCached != cached || (r.EncoderLayers == 0) != cached {
			t.Errorf("%s: prompt cached %v after %d encoder layers, want cached %v", r.Label, r.PromptCached, r.EncoderLayers, cached)
		}
		if s := r.Phase("step 1"); s.GFLOP <= 0 {
			t.Errorf("%s: step 1 has no FLOP count", r.Label)
		}
		if enc := r.Phase("encode"); (enc.GFLOP > 0) == r.PromptCached {
			t.Errorf("%s: encode counted %v GFLOP with prompt cached %v", r.Label, enc.GFLOP, r.PromptCached)
		}
		sum := 0.0
		for _, p := range r.Phases[:len(r.Phases)-1] {
			sum += p.Seconds
		}
		if total := r.Phase("total").Seconds; sum > total*1.001+1e-3 || sum < total*0.9-0.01 {
			t.Errorf("%s: phases sum to %.4f s, total %.4f s", r.Label, sum, total)
		}
		for _, k := range []string{"prompt_embeds", "latents_init", "latents_final", "image"} {
			s, ok := r.Stats[k]
			if !ok || s.NonFinite > 0 || !(s.RMS > 0.01 && s.RMS < 100) {
				t.Errorf("%s: %s stats %+v: want finite and O(1)", r.Label, k, s)
			}
		}
		if r.PeakAnon == 0 || r.PeakRSS == 0 || r.BackendPeak <= 0 {
			t.Errorf("%s: no memory figures (%d, %d, backend %d)", r.Label, r.PeakRSS, r.PeakAnon, r.BackendPeak)
		}
		if r.BackendPeak > rep.BackendPeak {
			t.Errorf("%s: backend peak %d above the whole benchmark's %d", r.Label, r.BackendPeak, rep.BackendPeak)
		}
	}
	if r := rep.Runs[3]; r.Width != 32 || r.ImageTokens != 4 {
		t.Errorf("fourth run %d px, %d tokens; want 32, 4", r.Width, r.ImageTokens)
	}
	if a, b := rep.Runs[0].Stats["prompt_embeds"], rep.Runs[1].Stats["prompt_embeds"]; a == b {
		t.Errorf("the second new prompt's embedding equals the first's (%+v): the same prompt ran", a)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"64² new prompt", "64² second new prompt", "64² same prompt", "32² same prompt", "step 2", "peak RssAnon", "peak backend tensors"} {
		if !strings.Contains(table.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, table.String())
		}
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Runs) != 4 || back.Runs[0].Phase("encode").Seconds != rep.Runs[0].Phase("encode").Seconds {
		t.Errorf("JSON round trip: %v", err)
	}
	t.Log("\n" + table.String())
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), Options{ModelDir: t.TempDir(), Sizes: []int{64}, PeakReps: -1}); err == nil {
		t.Error("empty folder accepted")
	}
	if _, err := Run(context.Background(), Options{ModelDir: golden.TinyModel(t), PeakReps: -1}); err == nil {
		t.Error("no sizes accepted")
	}
	if _, err := Run(context.Background(), Options{ModelDir: golden.TinyModel(t), Sizes: []int{8}, PeakReps: -1}); err == nil {
		t.Error("size 8 accepted")
	}
	c := backends.DefaultCPU()
	defer c.Close()
	if _, err := Run(context.Background(), Options{ModelDir: golden.TinyModel(t), Sizes: []int{32}, PeakReps: -1, Backend: c, Profile: true}); !errors.Is(err, errNoProfile) {
		t.Errorf("--profile on the CPU: %v, want %v", err, errNoProfile)
	}
}

// TestProcReaders: the /proc readers return plausible figures on Linux.
func TestProcReaders(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux-only")
	}
	st, ok := readStatus()
	if !ok || st.VmRSS == 0 || st.VmHWM < st.VmRSS || st.RssAnon == 0 || st.RssAnon > st.VmRSS {
		t.Errorf("readStatus = %+v, %v", st, ok)
	}
	if _, ok := majorFaults(); !ok {
		t.Error("majorFaults failed")
	}
	if l := loadAverage(); len(l) != 3 {
		t.Errorf("loadAverage = %v", l)
	}
	s := startSampler(time.Millisecond)
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = 1
	}
	time.Sleep(5 * time.Millisecond)
	if anon, rss := s.finish(); anon < 64<<20 || rss < anon {
		t.Errorf("sampler saw RssAnon %d, VmRSS %d after touching 64 MiB", anon, rss)
	}
	runtime.KeepAlive(buf)
}
