package flux2

import (
	"errors"
	"fmt"

	"kleinbild/engine/lora"
	"kleinbild/gpu"
)

// SetAdapters makes s the adapters Forward applies at run time (an empty stack: none). The
// base weights stay as they are; each adapter's factors are uploaded once and kept while it
// stays in the stack, so calling SetAdapters again with other strengths only changes their
// scales. Every term of s must target a linear layer of this model with its shape.
func (m *Model) SetAdapters(s lora.Stack) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ckpt == nil {
		return errors.New("flux2: SetAdapters on a closed model")
	}
	if len(s) == 0 && m.ad == nil {
		return nil
	}
	if m.ad == nil {
		m.ad = lora.NewRuntime(m.b, lora.Transformer)
	}
	if err := m.ad.Set(s, m.Layers()); err != nil {
		return fmt.Errorf("flux2: %w", err)
	}
	return nil
}

// Layers lists the model's linear layers (diffusers module name → [out, in]), the layers
// adapters may change.
func (m *Model) Layers() lora.Layers { return lora.LayersOf(TensorSpecs(m.cfg)) }

// linear computes y = x·wᵀ for rows rows and adds the adapters' terms of module prefix+name.
func (m *Model) linear(y, x, w gpu.Tensor, rows int, prefix, name string) {
	m.b.Linear(y, x, w, gpu.Tensor{}, rows)
	if m.ad.Active() {
		m.ad.Add(y, x, rows, prefix+name)
	}
}
