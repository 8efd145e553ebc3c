package engine

import (
	"context"
	"strings"
	"testing"

	"kleinbild/engine/lora"
	"kleinbild/weights/golden"
)

// TestNonFiniteCauseNamed: non-finite latents name where they came from, not always the
// transformer's weights (issue 30): huge but finite prompt embeddings, an adapter of an
// absurd scale (lora_alpha −1e30), huge initial latents.
func TestNonFiniteCauseNamed(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	dim := m.flux.Config().JointAttentionDim
	huge := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = 3e38
			if i%2 == 1 {
				v[i] = -3e38
			}
		}
		return v
	}
	a, err := lora.Open(golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Terms {
		a.Terms[i].Scale = -1e30
	}
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"embeddings", Request{PromptEmbeds: huge(TextTokens * dim)}, "prompt embeddings"},
		{"adapter", Request{Settings: Settings{Prompt: "x", AdaptersPartial: true}, Adapters: lora.Stack{{Adapter: a, Strength: 1}}}, "lora_kohya_r2_a1.safetensors"},
		{"latents", Request{Settings: Settings{Prompt: "x"}, Latents: huge(latentChannels * 4)}, "initial latents"},
	}
	for _, c := range cases {
		c.req.Width, c.req.Height, c.req.Steps, c.req.Seed = 32, 32, 1, 1
		_, err := m.Generate(context.Background(), c.req, nil)
		if err == nil || !strings.Contains(err.Error(), "non-finite") || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "transformer weights") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
