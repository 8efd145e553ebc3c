package estimate

import (
	"testing"

	"kleinbild/engine"
	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
)

// TestEstimateAdapters: a rank-32 adapter on every linear of the transformer adds its
// factors to the peak memory and its products (lora.Stack.FLOPsPerToken per token, every
// step and pass) to the denoising time; at strength 0 it adds no time.
func TestEstimateAdapters(t *testing.T) {
	m := preset(t, "klein-4B", true)
	rates := Calibration{Backend: "x", LinearGFLOPS: 100, AttentionGFLOPS: 50, ConvGFLOPS: 80}
	mc := Machine{AvailableBytes: 64 * gB, Rates: rates}
	req := Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}
	base, err := Estimate(m, req, mc)
	if err != nil {
		t.Fatal(err)
	}
	var terms []lora.Term
	for mod, sh := range lora.LayersOf(flux2.TensorSpecs(m.Transformer)) {
		terms = append(terms, lora.Term{Module: mod, Component: lora.Transformer, Kind: lora.LoRA, Out: sh[0], In: sh[1], Rank: 32, Scale: 1,
			A: lora.Matrix{Rows: 32, Cols: sh[1], Data: make([]float32, 32*sh[1])}, B: lora.Matrix{Rows: sh[0], Cols: 32, Data: make([]float32, 32*sh[0])}})
	}
	a := &lora.Adapter{Path: "r32", Terms: terms}
	req.Req.Adapters = lora.Stack{{Adapter: a, Strength: 1}}
	with, err := Estimate(m, req, mc)
	if err != nil {
		t.Fatal(err)
	}
	if got := with.PeakBytes - base.PeakBytes; got != a.Bytes() || with.Memory.AdapterWeights != a.Bytes() {
		t.Errorf("peak grew by %d bytes, the factors are %d", got, a.Bytes())
	}
	tokens := float64(base.Tokens)
	want := req.Req.Adapters.FLOPsPerToken(lora.Transformer) * tokens * float64(base.Steps*base.Passes)
	if relErr(with.FLOPs.Denoise-base.FLOPs.Denoise, want) > 1e-9 || want <= 0 {
		t.Errorf("denoise FLOPs grew by %.4g, want %.4g", with.FLOPs.Denoise-base.FLOPs.Denoise, want)
	}
	t.Logf("rank 32 on every linear of klein-4B at 512²: +%.1f %% denoise FLOPs, +%.0f MB", 100*want/base.FLOPs.Denoise, float64(a.Bytes())/1e6)
	req.Req.Adapters[0].Strength = 0
	zero, _ := Estimate(m, req, mc)
	if zero.FLOPs.Denoise != base.FLOPs.Denoise {
		t.Errorf("strength 0 adds %.4g FLOPs", zero.FLOPs.Denoise-base.FLOPs.Denoise)
	}
}
