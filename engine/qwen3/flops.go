package qwen3

// EncodeFLOPs is the floating-point work of running the first upto decoder layers (at most
// NumHiddenLayers) over tokens prompt tokens, 2 FLOPs per multiply-add. linear counts the
// layers' projections (q, k, v, o and the gated MLP) for every token; attention the q·kᵀ and
// p·v products under the causal mask, which skips the keys after each query: 2·tokens²·QDim
// per layer, half of the full 4·tokens²·QDim. The embedding is a lookup; norms, RoPE and
// softmax are not counted.
func (c Config) EncodeFLOPs(tokens, upto int) (linear, attention float64) {
	layers := float64(max(0, min(upto, c.NumHiddenLayers)))
	t := float64(tokens)
	h, q, kv, in := float64(c.HiddenSize), float64(c.QDim()), float64(c.KVDim()), float64(c.IntermediateSize)
	perTok := h*q + 2*h*kv + q*h + 3*h*in
	return 2 * t * layers * perTok, layers * 2 * t * t * q
}
