package app

import (
	"errors"
	"fmt"
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
	tips    *tipLayer
	pending []*func() // the timers started; a stopped one is nil
}

func newTipWindow(t *testing.T, size fyne.Size) *tipWindow {
	t.Helper()
	a := test.NewTempApp(t)
	tw := &tipWindow{win: a.NewWindow("tips")}
	tw.tips = newTipLayer(tw.win.Canvas(), func(fn func()) { fn() })
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
func hover(b *tipButton) {
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
	right := newTipButton(tw.tips, theme.CancelIcon(), "Close this long message strip", func() { tapped++ })
	left := newTipButton(tw.tips, theme.ZoomInIcon(), "Zoom in", nil)
	tw.win.SetContent(tw.tips.wrap(container.NewBorder(container.NewHBox(left, layout.NewSpacer(), right), nil, nil, nil)))
	shown := func() bool { return tw.tips.box.Visible() }

	hover(right)
	if shown() {
		t.Fatal("tip shown before the delay")
	}
	tw.elapse()
	if !shown() || tw.tips.text.Text != right.tip || tw.tips.owner != right {
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
	b := newTipButton(tw.tips, theme.CancelIcon(), "Close", nil)
	tw.win.SetContent(tw.tips.wrap(container.NewHBox(b)))
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

// unnamedButtons lists the buttons under o, hidden ones too, that have neither text nor
// a tooltip.
func unnamedButtons(o fyne.CanvasObject) []fyne.CanvasObject {
	switch v := o.(type) {
	case *tipButton:
		if v.Text == "" && v.tip == "" {
			return []fyne.CanvasObject{v}
		}
		return nil
	case *widget.Button:
		if v.Text == "" {
			return []fyne.CanvasObject{v}
		}
		return nil
	case *fyne.Container:
		var bad []fyne.CanvasObject
		for _, c := range v.Objects {
			bad = append(bad, unnamedButtons(c)...)
		}
		return bad
	case fyne.Widget:
		var bad []fyne.CanvasObject
		for _, c := range test.WidgetRenderer(v).Objects() {
			bad = append(bad, unnamedButtons(c)...)
		}
		return bad
	}
	return nil
}

// Issue 12: every button in the window says what it does, with its text or a tooltip.
// (Before: the seed, size swap, gallery, undo, banner and reference buttons were bare
// icons.)
func TestEveryButtonIsNamed(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	e := h.at(0)
	u.gal.selectEntry(e.File, nil)
	h.waitShownImage(e)
	u.AddReference(writeTestPNG(t, t.TempDir(), "ref.png", 256, 192, nil))
	h.settle()
	if len(u.refs.paths) != 1 {
		t.Fatalf("references %v", u.refs.paths)
	}
	u.showError(errors.New("something went wrong"))
	h.settle()
	if !u.banner.box.Visible() {
		t.Fatal("no banner")
	}
	// A queued job (its row has a ✕), with the queue paused (Resume).
	u.ctl.prompt.SetText("a queued job")
	f, ok := u.ctl.readForm()
	if !ok {
		t.Fatal("the form does not read")
	}
	u.run.queue.push(u.run.jobFromForm(f))
	u.run.queue.setPaused(true)
	u.view.openFullView()
	if u.view.full == nil {
		t.Fatal("no full-size view")
	}
	for name, w := range map[string]fyne.Window{"main window": h.win, "full-size view": u.view.full.win} {
		for _, b := range unnamedButtons(w.Canvas().Content()) {
			t.Errorf("%s: a button with neither text nor a tooltip: %s", name, describe(b))
		}
	}
}

// describe names a button by its icon.
func describe(o fyne.CanvasObject) string {
	if b, ok := o.(*widget.Button); ok && b.Icon != nil {
		return "icon " + b.Icon.Name()
	}
	return fmt.Sprintf("%T at %v", o, o.Position())
}

// findTipButton returns the button with the tooltip tip inside o, or nil.
func findTipButton(o fyne.CanvasObject, tip string) *tipButton {
	switch v := o.(type) {
	case *tipButton:
		if v.tip == tip {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findTipButton(c, tip); b != nil {
				return b
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if b := findTipButton(c, tip); b != nil {
				return b
			}
		}
	}
	return nil
}
