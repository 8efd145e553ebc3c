package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/history"
	"kleinbild/app/jobs"
	"kleinbild/app/widgets"
)

// promptHistory is the recent prompts (package history, history.json in the data folder)
// and the button next to the prompt that lists them; picking one puts it in the field.
type promptHistory struct {
	path    string
	prompts []string
	button  *widgets.TipButton
	canvas  fyne.Canvas
	pick    func(prompt string)
	failed  func(error) // reports a history that cannot be read or written
	menu    *widget.PopUpMenu
}

// recentPromptsTip is the history button's tooltip.
const recentPromptsTip = "Recent prompts"

// newPromptHistory loads the history at path; pick takes a chosen prompt.
func newPromptHistory(path string, tips *widgets.TipLayer, canvas fyne.Canvas, pick func(string), failed func(error)) *promptHistory {
	h := &promptHistory{path: path, canvas: canvas, pick: pick, failed: failed}
	h.button = widgets.NewTipButton(tips, theme.HistoryIcon(), recentPromptsTip, h.show)
	h.button.Importance = widget.LowImportance
	prompts, err := history.Load(path)
	h.prompts = prompts
	if err != nil {
		failed(err)
	}
	return h
}

// add puts a prompt that is being generated at the front and saves the history.
func (h *promptHistory) add(prompt string) {
	h.prompts = history.Add(h.prompts, prompt)
	if err := history.Save(h.path, h.prompts); err != nil {
		h.failed(err)
	}
}

// items are the menu's entries, newest first: each prompt on one line, shortened.
func (h *promptHistory) items() *fyne.Menu {
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
func (h *promptHistory) show() {
	h.menu = widget.NewPopUpMenu(h.items(), h.canvas)
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(h.button)
	h.menu.ShowAtPosition(pos.AddXY(0, h.button.Size().Height))
}
