package engine

import (
	"context"
	"testing"

	"kleinbild/weights/golden"
)

// negativeRun runs the golden base + CFG case with the given negative prompt and guidance,
// returning the final image and the dumped tensors.
func negativeRun(t *testing.T, m *Model, negative string, guidance float64) (*Result, map[string][]float32) {
	t.Helper()
	dumps := map[string][]float32{}
	req := Request{Settings: Settings{Prompt: "A red cube on a blue table", NegativePrompt: negative, Width: 64, Height: 48,
		Steps: 3, Seed: 15, Guidance: guidance},
		Dump: func(name string, _ []int, data []float32) error {
			dumps[name] = append([]float32(nil), data...)
			return nil
		}}
	res, err := m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, dumps
}

// TestNegativePrompt: the negative prompt is CFG's unconditional input on a base model,
// encoded like a prompt. An empty one is the golden case's (diffusers' default, the empty
// prompt: TestPipelineGolden); a negative prompt equal to the prompt's text is encoded to
// the golden prompt embedding (1e-5) and makes CFG's blend neg + g·(cond − neg) the
// conditional output exactly, so the image equals the run without CFG (guidance 1); any
// other negative prompt changes the image.
func TestNegativePrompt(t *testing.T) {
	m := openModel(t, golden.TinyBaseModel(t))
	f := golden.Open(t, "pipeline/t2i_base_cfg4_48x64_3steps.safetensors")
	pe, _ := golden.F32(t, f, "prompt_embeds")

	plain, plainDumps := negativeRun(t, m, "", 4)
	if _, ok := plainDumps["negative_prompt_embeds"]; !ok {
		t.Fatal("no negative prompt embedding was dumped with CFG on")
	}
	same, sameDumps := negativeRun(t, m, "A red cube on a blue table", 4)
	golden.Compare(t, "negative prompt embedding of the prompt's text", sameDumps["negative_prompt_embeds"], pe, 1e-5)
	noCFG, noCFGDumps := negativeRun(t, m, "", 1)
	if _, ok := noCFGDumps["negative_prompt_embeds"]; ok {
		t.Error("guidance 1 encoded a negative prompt: CFG should be off")
	}
	golden.Compare(t, "latents with negative = prompt against CFG off", same.Latents, noCFG.Latents, 1e-6)
	if d := relL2(plain.Latents, same.Latents); d < 1e-3 {
		t.Errorf("a negative prompt changed the latents by rel-L2 %.2g only: is it used?", d)
	}
	other, _ := negativeRun(t, m, "a green sphere", 4)
	if d := relL2(plain.Latents, other.Latents); d < 1e-3 {
		t.Errorf("negative prompt 'a green sphere' changed the latents by rel-L2 %.2g only", d)
	}
}
