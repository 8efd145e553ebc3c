package source

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestMissingShardsCapped: an index naming 20,000 missing shards gives an error that names
// a few and counts the rest (c20726f's was one line of 889 KB).
func TestMissingShardsCapped(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "transformer"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"weight_map":{`)
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"t%d":"diffusion_pytorch_model-%05d-of-20000.safetensors"`, i, i+1)
	}
	b.WriteString("}}")
	if err := os.WriteFile(filepath.Join(dir, "transformer", "diffusion_pytorch_model.safetensors.index.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var info ModelInfo
	info.Dir = dir
	inspectWeights(&info, dir, "transformer", "diffusion_pytorch_model.safetensors")
	if len(info.Problems) != 20000 {
		t.Fatalf("%d missing", len(info.Problems))
	}
	msg := info.MissingError().Error()
	if len(msg) > 2000 || !strings.Contains(msg, fmt.Sprintf(" and %d more", 20000-MaxListed)) {
		t.Errorf("%d bytes: %.300s", len(msg), msg)
	}
}

// TestComfyWithoutVAE: a ComfyUI folder with a transformer and a text encoder that fit but
// no usable VAE misses the VAE only, and a VAE file given from elsewhere completes it
// (c20726f reported all three missing, and with --vae still the other two).
func TestComfyWithoutVAE(t *testing.T) {
	root := filepath.Join(t.TempDir(), "models")
	for _, f := range []string{"diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf", "text_encoders/qwen3-tiny-Q8_0.gguf"} {
		dst := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(golden.Path(t, "gguf/model/comfyui", f), dst); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "vae"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "vae", "broken.safetensors"), []byte("not weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := OpenComfy(root, Overrides{VAEGroups: 8})
	if err != nil {
		t.Fatal(err)
	}
	if m := src.Info().Problems; len(m) != 1 || m[0].Component != VAE || m[0].Kind != NoFile || m[0].String() != "vae (give a file with --vae)" {
		t.Errorf("missing %v, want the VAE only", m)
	}
	vae := golden.Path(t, "gguf/model/comfyui/vae/flux2-ae-tiny.safetensors")
	src, err = OpenComfy(root, Overrides{VAE: vae, VAEGroups: 8})
	if err != nil {
		t.Fatal(err)
	}
	if info := src.Info(); !info.OK() || !slices.ContainsFunc(info.Files, func(f PartFile) bool { return f.Component == VAE && f.Path == vae }) {
		t.Errorf("with a VAE file: missing %v, files %+v", info.Problems, info.Files)
	}
}
