package gguf

import "kleinbild/internal/ggml"

// f16 converts IEEE binary16 bits to float32 exactly (ggml.Half).
func f16(h uint16) float32 { return ggml.Half(h) }
