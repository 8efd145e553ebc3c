package lora

// IsAdapterKey reports whether a tensor name (a safetensors header's key) names a LoRA or
// LoKr factor (lora_A/lora_down, lora_B/lora_up, lokr_w*), of any model. A file holding
// such keys is an adapter, not a model component: callers tell the two apart from the
// header alone, before reading any tensor.
func IsAdapterKey(name string) bool {
	_, p := splitKey(name)
	return p != partNone && p != partAlpha
}
