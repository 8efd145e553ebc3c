package assemble_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"kleinbild/weights/assemble"
	"kleinbild/weights/golden"
)

// TestDescribe checks that the Describe functions give Open's description without weights.
func TestDescribe(t *testing.T) {
	for _, f := range []struct {
		path           string
		open, describe func(string) (*assemble.Component, error)
	}{
		{"gguf/model/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf", assemble.OpenTransformer, assemble.DescribeTransformer},
		{"gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf",
			func(p string) (*assemble.Component, error) { return assemble.OpenTextEncoder(p, -1) }, assemble.DescribeTextEncoder},
		{"gguf/model/comfyui/vae/flux2-ae-tiny.safetensors",
			func(p string) (*assemble.Component, error) { return assemble.OpenVAE(p, 8) },
			func(p string) (*assemble.Component, error) { return assemble.DescribeVAE(p, 8) }},
	} {
		path := golden.Path(t, f.path)
		o, err := f.open(path)
		if err != nil {
			t.Fatal(err)
		}
		o.Close()
		d, err := f.describe(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		if d.Checkpoint != nil || !bytes.Equal(d.Config, o.Config) || d.Naming != o.Naming || len(d.Types) != len(o.Types) || d.Bytes() != st.Size() || o.Bytes() != st.Size() {
			t.Errorf("%s: described %+v, opened %+v", f.path, d, o)
		}
		// Quantized Linear weights count packed; only the text encoder's quantized
		// token_embd is dequantized, so only that file loads more than its size.
		if grows := strings.Contains(path, "qwen3-tiny-Q8_0"); grows != (d.LoadedBytes() > d.Bytes()) || d.LoadedBytes() < d.Bytes() {
			t.Errorf("%s: loaded %d bytes of a %d-byte file", f.path, d.LoadedBytes(), d.Bytes())
		}
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	}
}
