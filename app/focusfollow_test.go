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
	for _, o := range []fyne.Focusable{c.count, addRef, c.preset} {
		if o == fyne.Focusable(c.preset) {
			c.scroll.ScrollToBottom()
		} else {
			c.scroll.ScrollToTop()
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

// The form scrolls again to a control that keeps the focus while the form was not scrolled
// since its last scroll (the first may have measured a layout still settling: in a loaded
// full run the count select stayed below the fold), and leaves it once the user scrolled away.
func TestFocusScrollRetriesUntilTheUserScrolls(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	c := &h.ui.ctl
	h.win.Resize(fyne.NewSize(1008, 552))
	h.settle()
	relayout(h.win.Canvas().Content())
	c.scroll.ScrollToTop()
	if _, size, ok := shownRect(h.win.Canvas().Content(), c.count); ok && size.Height >= c.count.Size().Height-0.5 {
		t.Fatal("the count select shows at the top of the form at 1008×552: the test needs it below the fold")
	}
	// As if the count select had been scrolled to with a stale layout: still focused, the
	// offset is the one showFocused left, but the select is not in view.
	c.lastFocus, c.focusOffset = c.count, c.scroll.Offset.Y
	c.showFocused(c.count)
	relayout(h.win.Canvas().Content())
	requireShown(t, h.win, "the focused count select", c.count)
	// The user scrolls away: the focused select is left where it is.
	c.scroll.ScrollToTop()
	c.showFocused(c.count)
	if c.scroll.Offset.Y != 0 {
		t.Errorf("the form scrolled back to the focused select (offset %v) after the user scrolled to the top", c.scroll.Offset.Y)
	}
}
