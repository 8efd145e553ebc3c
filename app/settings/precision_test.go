package settings

import "testing"

// A remembered precision is exact, fast or empty; anything else is reset with a note.
func TestRepairPrecision(t *testing.T) {
	for _, p := range []string{"", "exact", "fast"} {
		s := Settings{Precision: p}
		if notes := s.Repair([]string{"purego"}); len(notes) != 0 || s.Precision != p {
			t.Errorf("%q: %q, notes %q", p, s.Precision, notes)
		}
	}
	s := Settings{Precision: "bf16"}
	if notes := s.Repair([]string{"purego"}); len(notes) != 1 || s.Precision != "" {
		t.Errorf("bf16 became %q, notes %q", s.Precision, notes)
	}
}
