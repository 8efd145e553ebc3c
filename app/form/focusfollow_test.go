package form

import (
	"testing"

	"fyne.io/fyne/v2"
)

// sidePanel is about the width of the window's side panel, where the form is.
const sidePanel = 320

// The form scrolls again to a control that keeps the focus while the form was not scrolled
// since its last scroll (the first may have measured a layout still settling: in a loaded
// full run the count select stayed below the fold), and leaves it once the user scrolled away.
func TestFocusScrollRetriesUntilTheUserScrolls(t *testing.T) {
	c, _, w := testControls(t, fyne.NewSize(sidePanel, 552))
	relayout(w.Canvas().Content())
	c.Scroll.ScrollToTop()
	if _, size, ok := shownRect(w.Canvas().Content(), c.count); ok && size.Height >= c.count.Size().Height-0.5 {
		t.Fatal("the count select shows at the top of the form 552 px tall: the test needs it below the fold")
	}
	// As if the count select had been scrolled to with a stale layout: still focused, the
	// offset is the one showFocused left, but the select is not in view.
	c.lastFocus, c.focusOffset = c.count, c.Scroll.Offset.Y
	c.showFocused(c.count)
	relayout(w.Canvas().Content())
	requireShown(t, w, "the focused count select", c.count)
	// The user scrolls away: the focused select is left where it is.
	c.Scroll.ScrollToTop()
	c.showFocused(c.count)
	if c.Scroll.Offset.Y != 0 {
		t.Errorf("the form scrolled back to the focused select (offset %v) after the user scrolled to the top", c.Scroll.Offset.Y)
	}
}

// Issue 36 item 11: a focusable control of the form scrolls into view when it gains the
// focus (Tab), not only the text fields: a select below the fold, and one above it.
// (Before, Tab's focus ring went below the fold on selects and buttons.) The timer that
// looks for the focus in a whole window, and a button of the References section, are root
// app's TestFocusScrollsTheFormToEveryControl.
func TestFocusScrollsTheFormToItsSelects(t *testing.T) {
	c, _, w := testControls(t, fyne.NewSize(sidePanel, 552))
	cv := w.Canvas()
	relayout(cv.Content())
	for _, o := range []fyne.Focusable{c.count, c.preset} {
		if o == fyne.Focusable(c.preset) {
			c.Scroll.ScrollToBottom()
		} else {
			c.Scroll.ScrollToTop()
		}
		obj := o.(fyne.CanvasObject)
		relayout(cv.Content())
		if _, size, ok := shownRect(cv.Content(), obj); ok && size.Height >= obj.Size().Height-0.5 {
			t.Fatalf("%T shows before it has the focus: the test needs it out of view", o)
		}
		cv.Focus(o)
		c.showFocused(cv.Focused()) // as FollowFocus's timer does
		requireShown(t, w, "the focused control", obj)
		cv.Unfocus()
	}
}
