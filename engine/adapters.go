package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"kleinbild/engine/lora"
	"kleinbild/engine/qwen3"
)

// Adapters: LoRA and LoKr files (package lora) applied at run time on top of the unchanged
// base weights. Request.Adapters names them with their strengths; Generate fits them to the
// model (lora's Check: shapes, unmatched keys), hands the transformer's terms to
// flux2.Model.SetAdapters and the text encoder's to qwen3.Encoder.SetAdapters. Factors stay
// uploaded while an adapter stays in the stack, so a new strength reloads nothing.

// AdapterLayers lists the layers adapters may change: the transformer's and the text
// encoder's (the latter from its config, without loading it).
func (m *Model) AdapterLayers() (map[lora.Component]lora.Layers, error) {
	cfg, err := m.src.EncoderConfig()
	if err != nil {
		return nil, err
	}
	return map[lora.Component]lora.Layers{
		lora.Transformer: m.flux.Layers(),
		lora.TextEncoder: qwen3.Layers(cfg),
	}, nil
}

// CheckAdapters checks a stack against the model: strengths (lora.Stack.Check) and every
// adapter's fit (lora.Adapter.Check; partial accepts keys that match nothing). Errors name
// the file.
func (m *Model) CheckAdapters(s lora.Stack, partial bool) error {
	if err := s.Check(); err != nil {
		return err
	}
	if len(s) == 0 {
		return nil
	}
	layers, err := m.AdapterLayers()
	if err != nil {
		return err
	}
	for _, w := range s {
		if err := w.Adapter.Check(layers, partial); err != nil {
			return err
		}
	}
	return nil
}

// SetAdapters checks s (CheckAdapters) and makes it the stack the next generations and
// prompt encodings apply (nil: none). Generate calls it with Request.Adapters.
func (m *Model) SetAdapters(s lora.Stack, partial bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.setAdapters(s, partial)
}

func (m *Model) setAdapters(s lora.Stack, partial bool) error {
	if err := m.loadDenoiser(); err != nil { // a reload after encoding may have failed
		return err
	}
	if err := m.CheckAdapters(s, partial); err != nil {
		return err
	}
	if err := m.flux.SetAdapters(s); err != nil {
		return fmt.Errorf("adapters: %w", err)
	}
	m.adapters = s
	m.textKey = textAdapterKey(s)
	if m.enc != nil {
		if err := m.enc.SetAdapters(s); err != nil {
			return fmt.Errorf("adapters: %w", err)
		}
	}
	return nil
}

// textAdapterKey identifies the text-encoder terms of s that change anything (strength not
// 0): the module names, effective scales and factor values, hashed. "" when there are none,
// so that transformer-only adapters keep the prompt-embedding cache's entries.
func textAdapterKey(s lora.Stack) string {
	mods := s.Modules(lora.TextEncoder)
	if len(mods) == 0 {
		return ""
	}
	h := sha256.New()
	var buf [4]byte
	put := func(v ...float32) {
		for _, x := range v {
			binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
			h.Write(buf[:])
		}
	}
	for _, w := range s {
		if w.Strength == 0 {
			continue
		}
		for _, t := range w.Adapter.Terms {
			if t.Component != lora.TextEncoder {
				continue
			}
			fmt.Fprintf(h, "%s\x00%d\x00", t.Module, t.Kind)
			put(w.Strength * t.Scale)
			for _, f := range []lora.Matrix{t.A, t.B, t.W1.Full, t.W1.A, t.W1.B, t.W2.Full, t.W2.A, t.W2.B} {
				fmt.Fprintf(h, "%d×%d\x00", f.Rows, f.Cols)
				put(f.Data...)
			}
		}
	}
	return "\x00adapters:" + hex.EncodeToString(h.Sum(nil)[:16])
}
