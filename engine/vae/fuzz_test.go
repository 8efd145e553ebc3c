package vae

import (
	"os"
	"path/filepath"
	"testing"

	"kleinbild/weights/golden"
)

// FuzzVAEConfig: parseConfig never panics, and a config it accepts stays within the bounds
// that keep TensorSpecs small.
func FuzzVAEConfig(f *testing.F) {
	if raw, err := os.ReadFile(filepath.Join(golden.TinyModel(f), "vae", "config.json")); err == nil {
		f.Add(raw)
	}
	for _, s := range []string{`{}`, `null`, `[]`, `{"layers_per_block": 1000000000}`, `{"block_out_channels": []}`,
		`{"block_out_channels": [32], "down_block_types": ["DownEncoderBlock2D"], "up_block_types": ["UpDecoderBlock2D"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig(data)
		if err != nil {
			return
		}
		if c.LayersPerBlock > maxLayersPerBlock || len(c.BlockOutChannels) > 8 {
			t.Fatalf("accepted %+v", c)
		}
		if n := len(TensorSpecs(c)); n > 100_000 {
			t.Fatalf("%d tensors for %+v", n, c)
		}
	})
}
