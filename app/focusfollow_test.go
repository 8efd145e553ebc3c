package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// Issue 36 item 11: every focusable control of the form scrolls into view when it gains
// the focus (Tab), not only the text fields: here a button of the References section at the
// form's end, found by the window's timer. (Before, Tab's focus ring went below the fold on
// selects and buttons.) The form's own selects, below and above the fold, are app/form's
// TestFocusScrollsTheFormToItsSelects.
func TestFocusScrollsTheFormToEveryControl(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	c := &u.ctl
	h.win.Resize(fyne.NewSize(1008, 552))
	h.settle()
	relayout(h.win.Canvas().Content())
	cv := h.win.Canvas()
	addRef := findButton(cv.Content(), "Add…") // the References' Add…
	for _, o := range []fyne.Focusable{addRef} {
		c.Scroll.ScrollToTop()
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
