package imageio

import (
	"strings"
	"testing"

	"kleinbild/engine/schema"
)

// Issue 28 item 10: the AUTOMATIC1111 parameters name the adapters as its LoRA tags, after
// the prompt (they were left out).
func TestParametersNameLoRAs(t *testing.T) {
	m := Metadata{
		Settings: schema.Settings{Prompt: "a castle", Steps: 4, Width: 64, Height: 64, Seed: 7, Guidance: 1},
		Adapters: []Adapter{{File: "style_a.safetensors", Strength: 0.75}, {File: "/loras/detail", Strength: -1}},
	}
	first, _, _ := strings.Cut(m.Parameters(), "\n")
	if want := "a castle <lora:style_a:0.75> <lora:detail:-1>"; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
}
