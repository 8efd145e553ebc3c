package settings

import (
	"strings"

	"kleinbild/engine"
)

// ScheduleChoice is an entry of the form's schedule menu: its label and the schedule
// (Settings.Schedule) it stands for.
type ScheduleChoice struct{ Label, Value string }

// scheduleLabels label the engine's schedules (engine.Schedules) in the menu.
var scheduleLabels = map[string]string{"flow": "Flow (default)", "linear": "Linear", "power": "Power"}

// ScheduleChoices is the form's schedule menu for a form that holds value, and value's
// index in it: the engine's schedules, the default first, then value itself when it is
// another one the engine accepts ("power:1.5", from a reused image or a queued job), so
// that reusing or editing keeps it. "" and a value the engine refuses select the default.
func ScheduleChoices(value string) ([]ScheduleChoice, int) {
	var cs []ScheduleChoice
	sel := 0
	for _, name := range engine.Schedules {
		label := scheduleLabels[name]
		if label == "" {
			label = name
		}
		if name == value {
			sel = len(cs)
		}
		cs = append(cs, ScheduleChoice{label, name})
	}
	if value != "" && sel == 0 && value != cs[0].Value && engine.CheckSettings(engine.Settings{Schedule: value}, true) == nil {
		sel = len(cs)
		cs = append(cs, ScheduleChoice{scheduleLabel(value), value})
	}
	return cs, sel
}

// scheduleLabel labels a schedule with a parameter: "power:1.5" is "Power 1.5".
func scheduleLabel(value string) string {
	name, param, _ := strings.Cut(value, ":")
	if label := scheduleLabels[name]; label != "" {
		return label + " " + param
	}
	return value
}
