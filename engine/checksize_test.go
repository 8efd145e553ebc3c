package engine

import (
	"errors"
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

// CheckEngineSize is the same rule over the engine's range (the CLI's -W/-H), and both
// give a *SizeError the app words its own messages from.
func TestCheckEngineSize(t *testing.T) {
	for _, c := range []struct {
		px   int
		want string
	}{
		{16, ""}, {48, ""}, {4096, ""},
		{8, "between 16 and 4096"}, {4112, "between 16 and 4096"}, {24, "try 16 or 32"}, {4090, "try 4080 or 4096"},
	} {
		err := CheckEngineSize(c.px)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckEngineSize(%d) = %v, want %q", c.px, err, c.want)
		}
	}
	var se *SizeError
	if !errors.As(CheckSize(100), &se) || se.OutOfRange || se.Lower != 96 || se.Upper != 112 {
		t.Errorf("CheckSize(100): %#v, want the sides 96 and 112", se)
	}
	if !errors.As(CheckSize(2000), &se) || !se.OutOfRange || se.Min != MinSidePx || se.Max != MaxSidePx {
		t.Errorf("CheckSize(2000): %#v, want out of range %d..%d", se, MinSidePx, MaxSidePx)
	}
}

// ValidateSteps and ValidateReferences are the one rule for steps and references that
// CheckRequest, the CLI, bench, estimate, jobs and the app's controls apply.
func TestValidateStepsAndReferences(t *testing.T) {
	for n, ok := range map[int]bool{-1: false, 0: false, 1: true, MaxSteps: true, MaxSteps + 1: false} {
		if err := ValidateSteps(n); (err == nil) != ok {
			t.Errorf("ValidateSteps(%d) = %v", n, err)
		}
	}
	for n, ok := range map[int]bool{0: true, MaxReferences: true, MaxReferences + 1: false} {
		if err := ValidateReferences(n); (err == nil) != ok {
			t.Errorf("ValidateReferences(%d) = %v", n, err)
		}
	}
	if err := CheckRequest(Request{Settings: Settings{Steps: MaxSteps + 1}}, true); err == nil || !strings.Contains(err.Error(), "out of range 1..200") {
		t.Errorf("CheckRequest with %d steps: %v", MaxSteps+1, err)
	}
	if err := CheckRequest(Request{Settings: Settings{References: make([]string, MaxReferences+1)}}, false); err == nil {
		t.Errorf("CheckRequest with %d references: no error", MaxReferences+1)
	}
}
