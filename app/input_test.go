package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/settings"
	"kleinbild/app/widgets"
)

// wheelOver turns the mouse wheel by dy (negative: down) over the middle of o, as a real
// window does: the event goes to the deepest scrollable object under the pointer.
func wheelOver(h *harness, o fyne.CanvasObject, dy float32) {
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(o).Add(fyne.NewPos(o.Size().Width/2, o.Size().Height/2))
	test.Scroll(h.win.Canvas(), pos, 0, dy)
}

// Issue 22 item 9: the wheel keeps scrolling the form while the pointer passes over a
// field of the Adapters section at the form's end: the LoRA folder's search, and a
// strength field added after the form was built. (The form's own fields, and the
// multi-line prompt, are app/form's TestWheelOverFieldsScrollsForm.)
func TestWheelOverFieldsScrollsForm(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	u := h.ui
	h.win.Resize(fyne.NewSize(1280, 420)) // the form is taller than its room
	h.settle()
	s := u.ctl.Scroll
	if s.Content.MinSize().Height <= s.Size().Height {
		t.Fatalf("the form (%v) fits its room (%v): nothing to scroll", s.Content.MinSize(), s.Size())
	}
	h.addAdapter(goldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	u.adapters.ApplySettings(settings.Settings{LoraDir: t.TempDir()}) // a LoRA folder shows the search field
	h.settle()
	for _, f := range []struct {
		name string
		e    *widgets.ShortcutEntry
	}{{"LoRA folder search", findShortcutEntry(h.win.Canvas().Content(), "Search the LoRA folder")}, {"adapter strength", findShortcutEntry(h.win.Canvas().Content(), "1.00")}} {
		s.ScrollToBottom()
		h.settle()
		bottom := s.Offset.Y
		wheelOver(h, f.e, 30)
		if bottom <= 0 || s.Offset.Y >= bottom {
			t.Errorf("the wheel over the %s field did not scroll the form (offset %v, at the bottom %v)", f.name, s.Offset.Y, bottom)
		}
	}
}

// Issue 22 item 9 and issue 28 item 7: queuing jobs and starting one never moves the form:
// the prompt and the Seed field stay where they were (a click meant for Seed once landed in
// the queue), and so does the queue's first ✕ in its own tab. (The line under Generate may
// wrap to another line as its estimate changes, runs measured and calibration back: that
// resizes the form's scroll, not what is in it, so positions are compared, not heights.)
func TestQueueKeepsItsHeight(t *testing.T) {
	h, fake := startBlockedRun(t, "first")
	u := h.ui
	at := func(o fyne.CanvasObject) fyne.Position {
		return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	}
	form := func() [3]fyne.Position {
		return [3]fyne.Position{at(u.ctl.Scroll), at(u.ctl.Prompt), at(u.ctl.Seed)}
	}
	u.Generate()
	h.settle()
	one, xAt := form(), at(u.run.Queue.Rows[0].Remove)
	for range 5 {
		u.Generate()
	}
	h.settle()
	if got := form(); got != one {
		t.Errorf("the form's scroll, prompt and Seed are at %v with 6 jobs queued, %v with 1: the layout jumps", got, one)
	}
	if got := at(u.run.Queue.Rows[0].Remove); got != xAt {
		t.Errorf("the first ✕ moved from %v to %v", xAt, got)
	}
	test.Tap(u.ctl.Generate) // cancel: the next job starts
	waitStarted(t, h, fake)
	h.settle()
	if got := form(); got != one {
		t.Errorf("the form's scroll, prompt and Seed are at %v after a job started, %v before", got, one)
	}
	if got := at(u.run.Queue.Rows[0].Remove); got != xAt {
		t.Errorf("after a job started the first ✕ moved from %v to %v", xAt, got)
	}
}

// Issue 22 item 9: removing a reference leaves the form where it was scrolled to.
func TestRemovingAReferenceKeepsTheScroll(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	u := h.ui
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"a.png", "b.png", "c.png", "d.png", "e.png"} {
		paths = append(paths, writeTestPNG(t, dir, n, 96, 80, nil))
	}
	done := u.refs.DropImages(paths, nil)
	h.waitFor("the references", 5*time.Second, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	h.settle()
	h.win.Resize(fyne.NewSize(1280, 420))
	h.settle()
	s := u.ctl.Scroll
	s.ScrollToOffset(fyne.NewPos(0, 120))
	h.settle()
	before := s.Offset.Y
	if before == 0 {
		t.Fatal("the form does not scroll")
	}
	test.Tap(findTipButtons(h.win.Canvas().Content(), "Remove this reference")[4])
	h.settle()
	if s.Offset.Y != before {
		t.Errorf("removing a reference scrolled the form from %v to %v", before, s.Offset.Y)
	}
}
