package uitest

import (
	"maps"
	"path/filepath"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// GoldenLoRA is the path of a tiny adapter of the golden data (made for the tiny model).
func GoldenLoRA(t testing.TB, name string) string {
	return golden.Path(t, "lora", "loras", name)
}

// WriteLoRA copies the golden kohya adapter to dir/name with extra metadata and, when
// extraKey is not "", one more tensor that adapts nothing Kleinbild knows.
func WriteLoRA(t testing.TB, dir, name string, meta map[string]string, extraKey string) string {
	t.Helper()
	f, err := weights.OpenFile(GoldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []weights.OutTensor
	for _, n := range f.Names() {
		tn, err := f.Tensor(n)
		if err != nil {
			t.Fatal(err)
		}
		v, err := tn.BF16()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, weights.OutTensor{Name: n, Shape: tn.Shape, BF16: append([]uint16(nil), v...)})
	}
	if extraKey != "" {
		out = append(out, weights.OutTensor{Name: extraKey, Shape: []int{2, 2}, BF16: []uint16{0x3f80, 0, 0, 0x3f80}})
	}
	md := maps.Clone(f.Metadata)
	maps.Copy(md, meta)
	path := filepath.Join(dir, name)
	if err := weights.WriteFile(path, out, md); err != nil {
		t.Fatal(err)
	}
	return path
}
