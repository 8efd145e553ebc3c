package engine

import (
	"context"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestEmbeddingsWidthChecked: prompt embeddings of another text width are refused even when
// their value count is a multiple of the model's width (issue 30 item 10: [1,512,48] and
// [1,512,192] passed on the tiny model, whose width is 96).
func TestEmbeddingsWidthChecked(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	dim := m.flux.Config().JointAttentionDim
	for _, width := range []int{dim / 2, dim * 2} {
		emb := make([]float32, TextTokens*width)
		_, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 32, Height: 32, Steps: 1}, PromptEmbeds: emb}, nil)
		if err == nil || !strings.Contains(err.Error(), "text width") {
			t.Errorf("embeddings [%d, %d] into width %d: %v", TextTokens, width, dim, err)
		}
	}
	emb := make([]float32, TextTokens*dim)
	if _, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 32, Height: 32, Steps: 1}, PromptEmbeds: emb}, nil); err != nil {
		t.Errorf("embeddings of the right shape: %v", err)
	}
}
