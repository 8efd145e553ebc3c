package settings

import "testing"

// Issue 35: a job edited back into the form, or an image reused, with the schedule
// "power:1.5" showed the default (the menu held flow, linear and power only, and an
// unknown value selected the first): the menu offers the job's own schedule, selected.
func TestScheduleChoicesKeepTheValue(t *testing.T) {
	for value, want := range map[string]ScheduleChoice{
		"":          {"Flow (default)", "flow"},
		"flow":      {"Flow (default)", "flow"},
		"linear":    {"Linear", "linear"},
		"power":     {"Power", "power"},
		"power:1.5": {"Power 1.5", "power:1.5"},
		"bogus":     {"Flow (default)", "flow"},
		"power:-1":  {"Flow (default)", "flow"},
	} {
		cs, i := ScheduleChoices(value)
		if i < 0 || i >= len(cs) || cs[i] != want {
			t.Errorf("%q: %v selects %d, want %v", value, cs, i, want)
		}
		if n := len(cs); n != 3 && !(value == "power:1.5" && n == 4) {
			t.Errorf("%q: %d choices %v", value, n, cs)
		}
	}
}
