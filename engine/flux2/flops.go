package flux2

import "slices"

// ForwardFLOPs is the floating-point work of one Forward over txt text tokens and img image
// tokens (target plus reference tokens), 2 FLOPs per multiply-add. linear counts the weight
// products: every block applies its weights once per token (a token of the double blocks
// passes only its own stream's weights: 4·d² + 3·d·mlp; a single block's fused projections
// (3·d + 2·mlp)·d + d·(d + mlp)), the text embedder sees the text rows, x_embedder and
// proj_out the image rows, and the timestep embedding and the modulations (18·d² in all) run
// once per call. attention counts q·kᵀ and p·v over S = txt + img tokens in every block,
// 4·S²·d. Norms, activations, RoPE and softmax are not counted.
func (c Config) ForwardFLOPs(txt, img int) (linear, attention float64) {
	d, mlp := float64(c.Hidden()), float64(c.MLPHidden())
	s := float64(txt + img)
	double := 4*d*d + 3*d*mlp
	single := (3*d+2*mlp)*d + d*(d+mlp)
	lin := s*(float64(c.NumLayers)*double+float64(c.NumSingleLayers)*single) +
		float64(txt)*float64(c.JointAttentionDim)*d + float64(img)*float64(c.InChannels+c.OutChannels)*d +
		float64(c.TimestepGuidanceChannels)*d + 18*d*d // timestep embedding and modulations, once per call
	return 2 * lin, float64(c.Blocks()) * 4 * s * s * d
}

// ForwardActivations is the number of float32 values of the activation tensors Forward
// allocates for tokens = txt + img tokens and keeps between calls (each reallocated only when
// a call needs more): the joint hidden state, norms, projections, rotary tables and
// modulation vectors, S·(7·hidden + 3·mlp + 2·head_dim) plus the per-call vectors. They are
// separate tensors; ForwardLargestActivation is the largest.
func (c Config) ForwardActivations(tokens int) int {
	n := 0
	for _, z := range layout(c, tokens) {
		n += z
	}
	return n
}

// ForwardLargestActivation is the number of float32 values of the largest activation tensor
// Forward allocates for tokens tokens: the fused projection, S·(3·hidden + 2·mlp).
func (c Config) ForwardLargestActivation(tokens int) int {
	sizes := layout(c, tokens)
	return slices.Max(sizes[:])
}
