package form

import (
	"strings"
	"testing"
)

func TestParseSide(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    int
		want string
	}{
		{"512", 512, ""}, {" 64 ", 64, ""}, {"1792", 1792, ""},
		{"1800", 1800, "between 64 and 1792"}, {"48", 48, "between 64 and 1792"},
		{"100", 100, "multiple of 16: try 96 or 112"}, {"1.5", 0, "not a whole number"}, {"", 0, "empty"},
	} {
		v, msg := parseSide("Width", c.in)
		if v != c.v || (c.want == "") != (msg == "") || !strings.Contains(msg, c.want) {
			t.Errorf("parseSide(%q) = %d, %q; want %d, %q", c.in, v, msg, c.v, c.want)
		}
	}
}
