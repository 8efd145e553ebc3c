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
	if _, size, ok := shownRect(w.Canvas().Content(), c.Count); ok && size.Height >= c.Count.Size().Height-0.5 {
		t.Fatal("the count select shows at the top of the form 552 px tall: the test needs it below the fold")
	}
	// As if the count select had been scrolled to with a stale layout: still focused, the
	// offset is the one showFocused left, but the select is not in view.
	c.lastFocus, c.focusOffset = c.Count, c.Scroll.Offset.Y
	c.showFocused(c.Count)
	relayout(w.Canvas().Content())
	requireShown(t, w, "the focused count select", c.Count)
	// The user scrolls away: the focused select is left where it is.
	c.Scroll.ScrollToTop()
	c.showFocused(c.Count)
	if c.Scroll.Offset.Y != 0 {
		t.Errorf("the form scrolled back to the focused select (offset %v) after the user scrolled to the top", c.Scroll.Offset.Y)
	}
}
