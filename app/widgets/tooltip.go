package widgets

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// tipDelay is how long the pointer rests on a button before its tooltip shows.
const tipDelay = 500 * time.Millisecond

// TipLayer draws the tooltips of one window, at most one at a time, above the window's
// content. It is part of the content rather than a canvas overlay: Fyne sends the pointer
// only to the topmost overlay, so a pop-up would take the hover from its button and
// swallow the next click. The tip is made of plain canvas objects, which take no pointer
// events, so the widgets under it keep working.
type TipLayer struct {
	canvas fyne.Canvas
	// post runs a function on the UI goroutine.
	post func(func())
	// after calls fn after d (on any goroutine) unless stopped; tests replace it.
	after func(d time.Duration, fn func()) (stop func())

	root  *fyne.Container // the window content: what wrap was given, and the tip above it
	layer *fyne.Container // the layer above the content holding box
	box   *fyne.Container // the tip, placed by hand
	bg    *canvas.Rectangle
	text  *canvas.Text
	owner *TipButton // whose tip shows, nil for none
}

// NewTipLayer makes the tooltip layer for the window of c; post runs a function on the
// UI goroutine. Give the window's content to wrap.
func NewTipLayer(c fyne.Canvas, post func(func())) *TipLayer {
	l := &TipLayer{canvas: c, post: post, after: afterFunc}
	l.bg = canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	l.text = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	l.box = container.NewWithoutLayout(l.bg, l.text)
	l.box.Hide()
	return l
}

// SetTimer replaces how the layer waits before showing a tip (tests show tips at once).
func (l *TipLayer) SetTimer(after func(d time.Duration, fn func()) (stop func())) { l.after = after }

// Showing reports the tip on screen: the button it belongs to, its text and whether it is
// visible.
func (l *TipLayer) Showing() (owner *TipButton, text string, visible bool) {
	return l.owner, l.text.Text, l.box.Visible()
}

// afterFunc runs fn after d on a timer goroutine.
func afterFunc(d time.Duration, fn func()) func() {
	t := time.AfterFunc(d, fn)
	return func() { t.Stop() }
}

// wrap returns the window content: content with the tooltips above it.
func (l *TipLayer) Wrap(content fyne.CanvasObject) fyne.CanvasObject {
	l.layer = container.NewWithoutLayout(l.box)
	l.root = container.NewStack(content, l.layer)
	return l.root
}

// show shows b's tip next to it, hiding any other.
func (l *TipLayer) show(b *TipButton) {
	if l.root == nil || b.Tip == "" {
		return
	}
	if l.canvas != nil && l.canvas.Overlays().Top() != nil {
		// The hovered button is in a dialog, which is drawn above this layer.
		return
	}
	pad := theme.InnerPadding() / 2
	l.text.Text = b.Tip
	l.text.TextSize = theme.CaptionTextSize()
	l.text.Color = theme.Color(theme.ColorNameForeground)
	l.text.Move(fyne.NewPos(pad, pad))
	l.text.Resize(l.text.MinSize())
	size := l.text.MinSize().AddWidthHeight(2*pad, 2*pad)
	l.bg.FillColor = theme.Color(theme.ColorNameOverlayBackground)
	l.bg.StrokeColor = theme.Color(theme.ColorNameSeparator)
	l.bg.StrokeWidth = 1
	l.bg.CornerRadius = theme.InputRadiusSize()
	l.bg.Resize(size)
	l.box.Resize(size)
	l.box.Move(tipPosition(b.at.Subtract(l.root.Position()), b.Size(), size, l.root.Size()))
	l.owner = b
	l.box.Show()
	// Refresh the layer, not the box: a real window's canvas does not know an object that
	// was hidden when it was built, so refreshing the box itself repaints nothing.
	l.layer.Refresh()
}

// hide hides b's tip if it shows.
func (l *TipLayer) hide(b *TipButton) {
	if l.owner != b {
		return
	}
	l.owner = nil
	l.box.Hide()
	l.layer.Refresh()
}

// tipPosition places a tip of size tip for a button at btn of size size inside an area:
// centred below the button, or above it when it does not fit below, moved sideways to
// stay inside the area. It never covers the button unless the area is too small for both.
func tipPosition(btn fyne.Position, size, tip, area fyne.Size) fyne.Position {
	const gap = 4
	x := btn.X + (size.Width-tip.Width)/2
	x = max(0, min(x, area.Width-tip.Width))
	y := btn.Y + size.Height + gap
	if y+tip.Height > area.Height {
		y = btn.Y - gap - tip.Height
	}
	y = max(0, min(y, area.Height-tip.Height))
	return fyne.NewPos(x, y)
}

// TipButton is an icon button with a tooltip: resting the pointer on it for tipDelay
// shows tip in its window's TipLayer (Fyne 2.7 buttons have no tooltips).
type TipButton struct {
	widget.Button
	Tip  string
	tips *TipLayer
	at   fyne.Position // the button's position in the canvas, noted on MouseIn
	stop func()        // cancels the pending tip, nil for none
	wait int           // counts hovers, so a timer from an earlier one does nothing
}

// NewTipButton makes a low-key icon button named tip, shown as a tooltip in tips (nil
// for none).
func NewTipButton(tips *TipLayer, icon fyne.Resource, tip string, tapped func()) *TipButton {
	b := &TipButton{Tip: tip, tips: tips}
	b.Icon = icon
	b.OnTapped = tapped
	b.Importance = widget.LowImportance
	b.ExtendBaseWidget(b)
	return b
}

// MouseIn starts the wait for the tip.
func (b *TipButton) MouseIn(ev *desktop.MouseEvent) {
	b.Button.MouseIn(ev)
	b.at = ev.AbsolutePosition.Subtract(ev.Position)
	b.cancelTip()
	if b.tips == nil || b.Tip == "" {
		return
	}
	n := b.wait
	b.stop = b.tips.after(tipDelay, func() {
		b.tips.post(func() {
			if b.wait == n && b.Visible() {
				b.tips.show(b)
			}
		})
	})
}

// MouseOut hides the tip.
func (b *TipButton) MouseOut() {
	b.Button.MouseOut()
	b.cancelTip()
}

// Tapped hides the tip and does what the button does.
func (b *TipButton) Tapped(ev *fyne.PointEvent) {
	b.cancelTip()
	b.Button.Tapped(ev)
}

// Hide hides the button and its tip.
func (b *TipButton) Hide() {
	b.cancelTip()
	b.Button.Hide()
}

// cancelTip stops a pending tip and hides a shown one.
func (b *TipButton) cancelTip() {
	b.wait++
	if b.stop != nil {
		b.stop()
		b.stop = nil
	}
	if b.tips != nil {
		b.tips.hide(b)
	}
}
