package inputs

import (
	"kleinbild/app/internal/uitest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 36 defect 3: a long adapter file name widened the form over the viewer and hid the
// adapter's ✕, its strength, Add… and Choose…. The name is shortened with "…", keeping its
// start and its extension, and the sections need no more width than before it was added.
func TestLongAdapterNameIsShortened(t *testing.T) {
	h := newHarness(t, t.TempDir())
	src, err := os.ReadFile(uitest.GoldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	name := "lora_bfl_final_layer_adaln_r4.safetensors"
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	h.addAdapter(uitest.GoldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	before := h.win.Content().MinSize().Width
	h.addAdapter(path)
	s := &h.adapters
	if len(s.entries) != 2 {
		t.Fatalf("%d adapters listed (error %q)", len(s.entries), s.err.Text)
	}
	label := s.entries[1].on.Text
	if !strings.Contains(label, "…") || !strings.HasPrefix(label, "lora_bfl") || !strings.HasSuffix(label, ".safetensors") {
		t.Errorf("the adapter is named %q", label)
	}
	if after := h.win.Content().MinSize().Width; after > before {
		t.Errorf("the window needs %v wide with the long name, %v before", after, before)
	}
	if p := s.Stack()[1].Adapter.Path; p != path {
		t.Errorf("the adapter's path became %q", p)
	}
}
