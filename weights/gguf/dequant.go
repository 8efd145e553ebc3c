package gguf

import (
	"encoding/binary"

	"kleinbild/internal/ggml"
)

// f16 converts IEEE binary16 bits to float32 exactly (ggml.Half).
func f16(h uint16) float32 { return ggml.Half(h) }

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
