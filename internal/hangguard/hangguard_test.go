package hangguard

import (
	"fmt"
	"testing"
	"time"
)

// fakeTB records the failure a guard reports instead of ending the test.
type fakeTB struct {
	testing.TB
	failure string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) { f.failure = fmt.Sprintf(format, args...) }

// TestHangIsReportedWithItsLabel: a call that never returns fails the test with its label;
// without a label the failure still says it blocked.
func TestHangIsReportedWithItsLabel(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	for _, tc := range []struct{ label, want string }{
		{"Load(/tmp/x/fifo.json)", "Load(/tmp/x/fifo.json): still blocked after 10ms"},
		{"", "still blocked after 10ms"},
	} {
		f := &fakeTB{TB: t}
		WithinLabel(f, 10*time.Millisecond, tc.label, func() { <-release })
		if f.failure != tc.want {
			t.Errorf("label %q: failure %q, want %q", tc.label, f.failure, tc.want)
		}
	}
}

// TestReturnedCallPasses: a call that returns before the deadline fails nothing.
func TestReturnedCallPasses(t *testing.T) {
	f := &fakeTB{TB: t}
	ran := false
	WithinLabel(f, time.Hour, "quick", func() { ran = true })
	if f.failure != "" || !ran {
		t.Errorf("ran %v, failure %q", ran, f.failure)
	}
}

// TestUnblockRunsBeforeTheFailure: after the deadline Unblock frees the call, and the guard
// reports the label only once the call has returned.
func TestUnblockRunsBeforeTheFailure(t *testing.T) {
	f := &fakeTB{TB: t}
	release := make(chan struct{})
	returned := false
	o := Options{Label: "Save(/tmp/x/settings.json)", Unblock: func() { close(release) }}
	WithinOptions(f, 10*time.Millisecond, o, func() { <-release; returned = true })
	if !returned {
		t.Error("the guard returned while the call still ran")
	}
	if want := "Save(/tmp/x/settings.json): still blocked after 10ms"; f.failure != want {
		t.Errorf("failure %q, want %q", f.failure, want)
	}
}
