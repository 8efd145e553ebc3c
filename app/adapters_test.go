package app

import (
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestAdaptersSection: an added adapter is listed switched on at strength 1; the slider
// sets its strength in the job's request, the switch leaves it out, remove empties the list;
// a file that is not an adapter shows an error naming it and adds nothing.
func TestAdaptersSection(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	s := &h.ui.adapters
	s.addFile(golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors"))
	h.settle()
	if len(s.entries) != 1 || len(s.list.Objects) != 1 || s.err.Visible() {
		t.Fatalf("%d entries, %d rows, error %q", len(s.entries), len(s.list.Objects), s.err.Text)
	}
	st := s.stack()
	if len(st) != 1 || st[0].Strength != 1 || !strings.HasSuffix(st[0].Adapter.Path, "lora_kohya_r2_a1.safetensors") {
		t.Fatalf("stack %+v", st)
	}
	e := s.entries[0]
	e.strength.SetValue(-0.5)
	if j := h.ui.run.jobFromForm(form{prompt: "x", count: 1}); len(j.Req.Adapters) != 1 || j.Req.Adapters[0].Strength != -0.5 || e.value.Text != "-0.50" {
		t.Errorf("job adapters %+v, label %q", j.Req.Adapters, e.value.Text)
	}
	e.on.SetChecked(false)
	if st := s.stack(); len(st) != 0 {
		t.Errorf("switched off, the stack still holds %d", len(st))
	}
	s.remove(e, s.list.Objects[0])
	if len(s.entries) != 0 || len(s.list.Objects) != 0 || !s.hint.Visible() {
		t.Errorf("after remove: %d entries, %d rows", len(s.entries), len(s.list.Objects))
	}
	bad := filepath.Join(golden.TinyModel(t), "transformer", "config.json")
	s.addFile(bad)
	if len(s.entries) != 0 || !s.err.Visible() || !strings.Contains(s.err.Text, "config.json") {
		t.Errorf("bad file: %d entries, error %q", len(s.entries), s.err.Text)
	}
}
