package app

import (
	"maps"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// goldenLoRA is a tiny adapter of the golden data (made for the tiny model).
func goldenLoRA(t *testing.T, name string) string {
	return golden.Path(t, "lora", "loras", name)
}

// writeLoRA copies the golden kohya adapter to dir/name with extra metadata and, when
// extraKey is not "", one more tensor that adapts nothing Kleinbild knows.
func writeLoRA(t *testing.T, dir, name string, meta map[string]string, extraKey string) string {
	t.Helper()
	f, err := weights.OpenFile(goldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
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

// addAdapter adds the file through the section and waits for it.
func (h *harness) addAdapter(path string) {
	h.t.Helper()
	done := h.ui.adapters.AddFiles([]string{path}, false)
	h.wait("the adapter to be read", done)
}

// wait runs the event loop until done is closed.
func (h *harness) wait(what string, done <-chan struct{}) {
	h.t.Helper()
	h.waitFor(what, 10*time.Second, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
}
