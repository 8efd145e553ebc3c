// Package recentprompts is the Recent prompts button beside the prompt field and its menu
// of the prompts generated lately (kept by package history); picking one puts it back.
package recentprompts

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/history"
	"kleinbild/app/jobs"
	"kleinbild/app/widgets"
)

// Recent is the recent prompts (package history, history.json in the data folder) and
// the button next to the prompt that lists them; picking one puts it in the field.
type Recent struct {
	path    string
	prompts []string
	// Button opens the menu; it goes beside the prompt field.
	Button *widgets.TipButton
	canvas fyne.Canvas
	pick   func(prompt string)
	failed func(error) // reports a history that cannot be read or written
	// Menu is the menu last opened (nil before).
	Menu *widget.PopUpMenu
}

// Tip is the history button's tooltip.
const Tip = "Recent prompts"

// New loads the history at path; pick takes a chosen prompt.
func New(path string, tips *widgets.TipLayer, canvas fyne.Canvas, pick func(string), failed func(error)) *Recent {
	h := &Recent{path: path, canvas: canvas, pick: pick, failed: failed}
	h.Button = widgets.NewTipButton(tips, theme.HistoryIcon(), Tip, h.show)
	h.Button.Importance = widget.LowImportance
	prompts, err := history.Load(path)
	h.prompts = prompts
	if err != nil {
		failed(err)
	}
	return h
}

// Add puts a prompt that is being generated at the front and saves the history.
func (h *Recent) Add(prompt string) {
	h.prompts = history.Add(h.prompts, prompt)
	if err := history.Save(h.path, h.prompts); err != nil {
		h.failed(err)
	}
}

// Items are the menu's entries, newest first: each prompt on one line, shortened.
func (h *Recent) Items() *fyne.Menu {
	var items []*fyne.MenuItem
	for _, p := range h.prompts {
		items = append(items, fyne.NewMenuItem(jobs.Ellipsize(p, 60), func() { h.pick(p) }))
	}
	if len(items) == 0 {
		none := fyne.NewMenuItem("No prompts yet: the prompts you generate appear here", nil)
		none.Disabled = true
		items = append(items, none)
	}
	return fyne.NewMenu("", items...)
}

// show opens the menu under the button.
func (h *Recent) show() {
	h.Menu = widget.NewPopUpMenu(h.Items(), h.canvas)
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(h.Button)
	h.Menu.ShowAtPosition(pos.AddXY(0, h.Button.Size().Height))
}
