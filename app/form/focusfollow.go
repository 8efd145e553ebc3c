package form

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// focusCheckInterval is how often the form looks whether the keyboard focus moved onto
// one of its controls.
const focusCheckInterval = 150 * time.Millisecond

// FollowFocus scrolls the form to whichever of its controls gains the keyboard focus until
// the window's life ends. Fyne tells no one but the widget itself when the focus moves, and
// Tab moves it in the driver, so selects, buttons, checks and sliders (unlike the text
// fields, which scroll on their own) are looked for on a timer (issue 36 item 11).
func (c *Controls) FollowFocus() {
	sh := c.sh
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		t := time.NewTicker(focusCheckInterval)
		defer t.Stop()
		for {
			select {
			case <-sh.Life.Done():
				return
			case <-t.C:
				sh.Post(func() { c.showFocused(sh.Win.Canvas().Focused()) })
			}
		}
	}()
}

// showFocused scrolls the form to f when f is one of its controls. It scrolls again while
// the same control keeps the focus and the form was not scrolled since (the first scroll may
// have measured a layout still settling), but not once the user scrolled away from it.
func (c *Controls) showFocused(f fyne.Focusable) {
	if f == c.lastFocus && (c.Scroll == nil || c.Scroll.Offset.Y != c.focusOffset) {
		return
	}
	c.lastFocus = f
	o, ok := f.(fyne.CanvasObject)
	if ok && c.Scroll != nil && holds(c.Scroll.Content, o) {
		c.scrollToShow(o)
	}
	if c.Scroll != nil {
		c.focusOffset = c.Scroll.Offset.Y
	}
}

// holds reports whether o is root or inside it, through containers and scrolls.
func holds(root, o fyne.CanvasObject) bool {
	switch r := root.(type) {
	case nil:
		return false
	case *fyne.Container:
		for _, c := range r.Objects {
			if holds(c, o) {
				return true
			}
		}
	case *container.Scroll:
		return root == o || holds(r.Content, o)
	}
	return root == o
}
