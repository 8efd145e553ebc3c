package notify

import "testing"

// TestTitle: the title shows the progress in whole percent, clamped to 0..100.
func TestTitle(t *testing.T) {
	for _, c := range []struct {
		frac float64
		want string
	}{{0, "0% — Kleinbild"}, {0.424, "42% — Kleinbild"}, {1, "100% — Kleinbild"}, {-1, "0% — Kleinbild"}, {2, "100% — Kleinbild"}} {
		if got := Title(c.frac, "Kleinbild"); got != c.want {
			t.Errorf("Title(%v) = %q, want %q", c.frac, got, c.want)
		}
	}
}
