package flux2

import (
	"os"
	"path/filepath"
	"testing"

	"kleinbild/weights/golden"
)

// FuzzFlux2Config: parseConfig never panics, and a config it accepts has sizes whose
// products cannot overflow.
func FuzzFlux2Config(f *testing.F) {
	if raw, err := os.ReadFile(filepath.Join(golden.TinyModel(f), "transformer", "config.json")); err == nil {
		f.Add(raw)
	}
	for _, s := range []string{`{}`, `null`, `[]`, `{"num_layers": 1000000000}`,
		`{"in_channels": 128, "num_layers": 1, "num_single_layers": 1, "attention_head_dim": 8, "num_attention_heads": 1, "joint_attention_dim": 8, "axes_dims_rope": [2, 2, 2, 2]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig(data)
		if err != nil {
			return
		}
		if c.Hidden() <= 0 || c.Hidden() > maxDim || c.MLPHidden() <= 0 || c.Blocks() > 2000 {
			t.Fatalf("accepted %+v", c)
		}
	})
}
