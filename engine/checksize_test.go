package engine

import (
	"strings"
	"testing"
)

// CheckSize is the one side rule of the app and the CLI (issue 12, item 11): a multiple of
// 16 in 64..1792, never rounded.
func TestCheckSize(t *testing.T) {
	for _, c := range []struct {
		px   int
		want string
	}{
		{64, ""}, {512, ""}, {1792, ""},
		{0, "out of range"}, {48, "between 64 and 1792"}, {1808, "between 64 and 1792"}, {4096, "out of range"},
		{100, "not a multiple of 16: try 96 or 112"}, {70, "try 64 or 80"}, {1790, "try 1776 or 1792"},
	} {
		err := CheckSize(c.px)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckSize(%d) = %v, want %q", c.px, err, c.want)
		}
	}
}
