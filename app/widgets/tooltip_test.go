package widgets

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// tipWindow is a window with a tooltip layer whose timers fire only when the test says.
type tipWindow struct {
	win     fyne.Window
	tips    *TipLayer
	pending []*func() // the timers started; a stopped one is nil
}

func newTipWindow(t *testing.T, size fyne.Size) *tipWindow {
	t.Helper()
	a := test.NewTempApp(t)
	tw := &tipWindow{win: a.NewWindow("tips")}
	tw.tips = NewTipLayer(tw.win.Canvas(), func(fn func()) { fn() })
	tw.tips.after = func(d time.Duration, fn func()) func() {
		if d != tipDelay {
			t.Errorf("tip delay %v, want %v", d, tipDelay)
		}
		cell := &fn
		tw.pending = append(tw.pending, cell)
		return func() { *cell = nil }
	}
	tw.win.Resize(size)
	t.Cleanup(tw.win.Close)
	return tw
}

// elapse fires the timers started and not stopped.
func (tw *tipWindow) elapse() {
	cells := tw.pending
	tw.pending = nil
	for _, fn := range cells {
		if *fn != nil {
			(*fn)()
		}
	}
}

// elapseStopped fires the timers started, stopped ones too (as if Stop lost the race).
func (tw *tipWindow) elapseStopped(fns []func()) {
	for _, fn := range fns {
		fn()
	}
}

// hover moves the pointer onto b.
func hover(b *TipButton) {
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(b)
	at := fyne.NewPos(3, 3)
	b.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{AbsolutePosition: abs.Add(at), Position: at}})
}

// tipRect is where the tip shows, in canvas coordinates.
func (tw *tipWindow) tipRect() (fyne.Position, fyne.Size) {
	return tw.tips.box.Position().Add(tw.tips.root.Position()), tw.tips.box.Size()
}

func overlaps(p1 fyne.Position, s1 fyne.Size, p2 fyne.Position, s2 fyne.Size) bool {
	return p1.X < p2.X+s2.Width && p2.X < p1.X+s1.Width && p1.Y < p2.Y+s2.Height && p2.Y < p1.Y+s1.Height
}

// A resting pointer shows the tip after the delay, beside the button and inside the
// window; leaving, tapping or hiding the button hides it, and only one tip shows.
func TestTooltipShowsAndHides(t *testing.T) {
	tw := newTipWindow(t, fyne.NewSize(400, 300))
	tapped := 0
	right := NewTipButton(tw.tips, theme.CancelIcon(), "Close this long message strip", func() { tapped++ })
	left := NewTipButton(tw.tips, theme.ZoomInIcon(), "Zoom in", nil)
	tw.win.SetContent(tw.tips.Wrap(container.NewBorder(container.NewHBox(left, layout.NewSpacer(), right), nil, nil, nil)))
	shown := func() bool { return tw.tips.box.Visible() }

	hover(right)
	if shown() {
		t.Fatal("tip shown before the delay")
	}
	tw.elapse()
	if !shown() || tw.tips.text.Text != right.Tip || tw.tips.owner != right {
		t.Fatalf("after the delay: shown %v, text %q", shown(), tw.tips.text.Text)
	}
	pos, size := tw.tipRect()
	win := tw.win.Canvas().Size()
	if pos.X < 0 || pos.Y < 0 || pos.X+size.Width > win.Width || pos.Y+size.Height > win.Height {
		t.Errorf("tip at %v size %v is not inside the %v window", pos, size, win)
	}
	btnPos := fyne.CurrentApp().Driver().AbsolutePositionForObject(right)
	if overlaps(pos, size, btnPos, right.Size()) {
		t.Errorf("tip at %v size %v covers the button at %v size %v", pos, size, btnPos, right.Size())
	}
	if size.Width < right.Size().Width || pos.X+size.Width < btnPos.X+right.Size().Width-1 {
		t.Errorf("tip at %v size %v is not beside the button at %v", pos, size, btnPos)
	}

	right.MouseOut()
	if shown() {
		t.Error("tip still shown after the pointer left")
	}
	tw.elapse()
	hover(right)
	late := *tw.pending[0]
	right.MouseOut()
	tw.elapseStopped([]func(){late})
	if shown() {
		t.Error("a timer from a hover that ended showed the tip")
	}

	// Tapping hides the tip and still taps.
	hover(right)
	tw.elapse()
	test.Tap(right)
	if shown() || tapped != 1 {
		t.Errorf("after a tap: tip shown %v, tapped %d times", shown(), tapped)
	}
	right.MouseOut()

	// One tip at a time: the other button's tip replaces it, and leaving the first
	// button does not hide the second's.
	hover(right)
	tw.elapse()
	hover(left)
	tw.elapse()
	right.MouseOut()
	if !shown() || tw.tips.text.Text != "Zoom in" {
		t.Errorf("second tip: shown %v, text %q", shown(), tw.tips.text.Text)
	}
	left.Hide()
	if shown() {
		t.Error("tip still shown after its button was hidden")
	}
	left.Show()

	// A hidden button shows no tip when its timer fires.
	hover(left)
	left.Hide()
	tw.elapse()
	if shown() {
		t.Error("a hidden button's tip showed")
	}
}

// Behind a dialog the layer shows nothing (it would be drawn under the dialog).
func TestTooltipNotUnderDialog(t *testing.T) {
	tw := newTipWindow(t, fyne.NewSize(400, 300))
	b := NewTipButton(tw.tips, theme.CancelIcon(), "Close", nil)
	tw.win.SetContent(tw.tips.Wrap(container.NewHBox(b)))
	widget.ShowPopUp(widget.NewLabel("dialog"), tw.win.Canvas())
	hover(b)
	tw.elapse()
	if tw.tips.box.Visible() {
		t.Error("tip shown under a dialog")
	}
}

func TestTipPosition(t *testing.T) {
	area := fyne.NewSize(400, 300)
	btn := fyne.NewSize(30, 30)
	tip := fyne.NewSize(120, 20)
	for _, c := range []struct {
		name     string
		at, want fyne.Position
	}{
		{"centred below", fyne.NewPos(100, 10), fyne.NewPos(55, 44)},
		{"right edge", fyne.NewPos(370, 10), fyne.NewPos(280, 44)},
		{"left edge", fyne.NewPos(0, 10), fyne.NewPos(0, 44)},
		{"bottom edge: above", fyne.NewPos(100, 270), fyne.NewPos(55, 246)},
	} {
		if got := tipPosition(c.at, btn, tip, area); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
