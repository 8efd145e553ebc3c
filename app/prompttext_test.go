package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/widgets"
	"kleinbild/engine"
)

// longPrompt is one paragraph of n bytes.
func longPrompt(n int) string {
	return strings.Repeat("a red cube on a blue table, ", n/28+1)[:n]
}

// BenchmarkPromptField puts a 64 KB one-paragraph prompt into the prompt field (with word
// wrapping this took over two minutes).
func BenchmarkPromptField(b *testing.B) {
	a := test.NewTempApp(b)
	w := a.NewWindow("bench")
	e := widgets.NewShortcutEntry(true, nil)
	w.SetContent(e)
	w.Resize(fyne.NewSize(400, 300))
	long := longPrompt(engine.MaxPromptBytes)
	for b.Loop() {
		e.SetText("")
		e.SetText(long)
	}
}
