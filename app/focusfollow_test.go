package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// Issue 36 item 11: every focusable control of the form scrolls into view when it gains
// the focus (Tab), not only the text fields: a select and a button below the fold, and the
// prompt above it. (Before, Tab's focus ring went below the fold on selects and buttons.)
func TestFocusScrollsTheFormToEveryControl(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	c := &u.ctl
	h.win.Resize(fyne.NewSize(1008, 552))
	h.settle()
	relayout(h.win.Canvas().Content())
	cv := h.win.Canvas()
	addRef := findButton(cv.Content(), "Add…") // the References' Add…
	for _, o := range []fyne.Focusable{c.Count, addRef, c.Preset} {
		if o == fyne.Focusable(c.Preset) {
			c.Scroll.ScrollToBottom()
		} else {
			c.Scroll.ScrollToTop()
		}
		cv.Focus(o)
		obj := o.(fyne.CanvasObject)
		h.waitFor("the focused control to scroll into view", 5*time.Second, func() bool {
			relayout(cv.Content())
			pos, size, ok := shownRect(cv.Content(), obj)
			return ok && pos.Y >= 0 && size.Height >= obj.Size().Height-0.5
		})
		requireShown(t, h.win, "the focused control", obj)
		cv.Unfocus()
	}
}
