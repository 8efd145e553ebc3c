package vae

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestConfigDescribesFewerLayers: a config.json that asks for fewer layers than the
// weights hold (layers_per_block 1, no mid-block attention, no post-quant conv) is refused
// with a tensor it would leave out, as the transformer and text encoder refuse theirs; it
// loaded and decoded a different image (issue 37 item 7a).
func TestConfigDescribesFewerLayers(t *testing.T) {
	tiny := filepath.Join(golden.TinyModel(t), "vae")
	raw, err := os.ReadFile(filepath.Join(tiny, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, left string }{
		{`"layers_per_block": 2`, `"layers_per_block": 1`, "resnets."},
		{`"mid_block_add_attention": true`, `"mid_block_add_attention": false`, "mid_block.attentions.0."},
		{`"use_post_quant_conv": true`, `"use_post_quant_conv": false`, "post_quant_conv."},
		{`"use_quant_conv": true`, `"use_quant_conv": false`, "quant_conv."},
	} {
		cfg := strings.Replace(string(raw), c.from, c.to, 1)
		if cfg == string(raw) {
			t.Fatalf("%s not in the tiny config", c.from)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(tiny, "diffusion_pytorch_model.safetensors"), filepath.Join(dir, "diffusion_pytorch_model.safetensors")); err != nil {
			t.Fatal(err)
		}
		v, err := Load(dir, device())
		if err == nil {
			v.Close()
			t.Errorf("%s: loaded", c.to)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "not expected") || !strings.Contains(msg, c.left) {
			t.Errorf("%s: %v", c.to, err)
		}
	}
}
