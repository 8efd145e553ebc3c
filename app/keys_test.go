package app

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/internal/uitest"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// typeKey types a key on canvas c as the window does: to the focused widget when there is
// one, else to the canvas.
func typeKey(c fyne.Canvas, name fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: name}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	c.OnTypedKey()(ev)
}

// TestCtrlQFromEveryField: Ctrl+Q asks to quit (here: closes, nothing runs) also while a
// text field has the focus (issue 36 item 5: it did nothing from the prompt, size, seed or
// search field: a focused entry takes every shortcut).
func TestCtrlQFromEveryField(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	closed := 0
	u.closeWindow = func() { closed++ }
	c := h.win.Canvas()
	for _, f := range []struct {
		name string
		e    fyne.Focusable
	}{
		{"prompt", u.ctl.Prompt}, {"width", u.ctl.Width},
		{"height", u.ctl.Height}, {"steps", u.ctl.Steps}, {"seed", u.ctl.Seed},
		{"gallery search", u.gal.Search},
	} {
		c.Focus(f.e)
		if c.Focused() != f.e {
			t.Fatalf("%s: cannot take the focus", f.name)
		}
		before := closed
		typeShortcut(c, &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault})
		if closed != before+1 {
			t.Errorf("Ctrl+Q in the %s field did not quit", f.name)
		}
	}
	c.Focus(u.ctl.Seed)
	typeShortcut(c, &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault})
	if c.Focused() != u.ctl.Prompt {
		t.Errorf("Ctrl+L in the seed field left the focus on %T", c.Focused())
	}
}

// TestEscapeClosesDialogsAndWindows: Escape closes the Model dialog (as its Close button
// does: the Model dialog forgets itself), with nothing focused and while one of its fields,
// its list or a check has the focus; and Inpaint while a field, slider or check of its has
// it (issue 36 item 13: Escape did not close the Model dialog, and was ignored in Inpaint
// while a field or slider had the focus). Trash and Compare are tested in app/galleryui.
func TestEscapeClosesDialogsAndWindows(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	c := u.Win.Canvas()
	overlay := func() bool { return c.Overlays().Top() != nil }
	for _, d := range []struct {
		name string
		show func()
	}{
		{"Model", u.ShowModelDialog},
	} {
		d.show()
		h.settle()
		focus := uitest.Escapers(c.Overlays().Top())
		if len(focus) == 0 {
			t.Fatalf("%s: no field takes Escape", d.name)
		}
		for _, f := range append([]fyne.Focusable{nil}, focus...) {
			if !overlay() {
				d.show()
				h.settle()
			}
			if f == nil {
				c.Unfocus()
			} else {
				c.Focus(f)
			}
			typeKey(c, fyne.KeyEscape)
			h.settle()
			if overlay() {
				t.Errorf("%s: Escape with %T focused left it open", d.name, f)
			}
			if u.model.Dlg != nil {
				t.Errorf("%s: Escape with %T focused closed the Model dialog behind its back", d.name, f)
			}
		}
	}

	open := func(w fyne.Window) bool { return slices.Contains(fyne.CurrentApp().Driver().AllWindows(), w) }
	u.gal.SelectEntry(h.at(0).File, nil)
	h.waitShownImage(h.at(0))
	m := u.view.OpenInpaint()
	if m == nil {
		t.Fatalf("Inpaint did not open: %q", u.ErrorText())
	}
	for _, f := range []fyne.Focusable{m.Parts().Prompt, m.Parts().Amounts[2], m.Parts().Size, m.Parts().Strength, m.Parts().Eraser} {
		if !open(m.Parts().Win) {
			m = u.view.OpenInpaint()
		}
		m.Parts().Win.Canvas().Focus(f)
		typeKey(m.Parts().Win.Canvas(), fyne.KeyEscape)
		if open(m.Parts().Win) {
			t.Errorf("Inpaint: Escape with %T focused left it open", f)
		}
	}
}

// TestOneQuitQuestion: repeated Ctrl+Q during a run asks once; the question follows the
// run (into the next queued job) and goes when nothing runs any more (issue 36 item 8:
// the questions stacked, and one outlived the run still saying "78% done").
func TestOneQuitQuestion(t *testing.T) {
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	closed := 0
	u.closeWindow = func() { closed++ }
	c := u.Win.Canvas()
	test.Type(u.ctl.Prompt, "a lighthouse")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	u.ctl.Prompt.SetText("queued")
	test.Tap(u.run.Queue.Add)
	h.settle()
	for range 3 {
		typeShortcut(c, &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault})
		h.settle()
	}
	if n := len(c.Overlays().List()); n != 1 || u.quit == nil {
		t.Fatalf("three Ctrl+Q during a run: %d dialogs open, want one question", n)
	}
	first := u.run.Current()
	u.Cancel() // the queued job starts next: the question stays, about it
	h.waitFor("the next job", 10*time.Second, func() bool { return u.run.Current() != nil && u.run.Current() != first })
	waitStarted(t, h, fake)
	h.settle()
	if n := len(c.Overlays().List()); n != 1 || u.quit == nil || !strings.Contains(u.quit.msg.Text, "being made") {
		t.Fatalf("the next job started: %d dialogs, question open %v", n, u.quit != nil)
	}
	u.Cancel()
	h.waitFor("the run to end", 10*time.Second, func() bool { return u.run.Current() == nil })
	h.settle()
	if c.Overlays().Top() != nil || u.quit != nil {
		t.Error("the quit question outlived the run")
	}
	if closed != 0 {
		t.Fatal("the question closed the window by itself")
	}
	u.requestClose()
	if closed != 1 {
		t.Error("Ctrl+Q after the run did not close at once")
	}
}

// TestInpaintShowsItsRun: while the Inpaint window's job waits or runs, the window shows
// its progress and Cancel, and Generate and "Repaint all" are disabled; Cancel takes a
// waiting job out of the queue and stops a running one, and the window is as before (issue
// 36 item 6: no progress, no Cancel, and the buttons stayed enabled).
func TestInpaintShowsItsRun(t *testing.T) {
	fake := newFakeGen()
	fake.block = true
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "gallery"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, filepath.Join(data, "gallery"), "a.png", 64, 48, nil)
	h := newHarness(t, data, tinyModel(t), fake.open)
	u := h.ui
	u.gal.SelectEntry(h.at(0).File, nil)
	h.waitShownImage(h.at(0))
	m := u.view.OpenInpaint()
	if m == nil {
		t.Fatalf("Inpaint did not open: %q", u.ErrorText())
	}
	m.Parts().Win.Resize(fyne.NewSize(700, 500))
	m.Parts().Prompt.SetText("a red door")
	m.Parts().Editor.Brush = 16
	paintAt(m.Parts().Editor, image.Pt(20, 20))
	idle := func(when string) {
		t.Helper()
		if m.Parts().Progress.Visible() || m.Parts().Generate.Disabled() || m.Parts().Repaint.Disabled() {
			t.Errorf("%s: progress shown %v, Generate disabled %v, Repaint all disabled %v", when, m.Parts().Progress.Visible(), m.Parts().Generate.Disabled(), m.Parts().Repaint.Disabled())
		}
	}
	busy := func(when, text string) {
		t.Helper()
		h.settle()
		if !m.Parts().Progress.Visible() || !m.Parts().Cancel.Visible() || !m.Parts().Generate.Disabled() || !m.Parts().Repaint.Disabled() {
			t.Fatalf("%s: progress shown %v, Generate disabled %v, Repaint all disabled %v", when, m.Parts().Progress.Visible(), m.Parts().Generate.Disabled(), m.Parts().Repaint.Disabled())
		}
		if !strings.Contains(m.Parts().ProgressText.Text, text) {
			t.Errorf("%s: the window says %q, want %q in it", when, m.Parts().ProgressText.Text, text)
		}
	}
	idle("before")

	// Behind a run of the form's, it waits in the queue; Cancel takes it out.
	test.Type(u.ctl.Prompt, "a lighthouse")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	formRun := u.run.Current()
	test.Tap(m.Parts().Generate)
	busy("queued", "Waiting")
	if len(u.run.Queue.Jobs) != 1 {
		t.Fatalf("%d jobs queued, want the window's", len(u.run.Queue.Jobs))
	}
	test.Tap(m.Parts().Cancel)
	if len(u.run.Queue.Jobs) != 0 || u.run.Current() != formRun || formRun.Cancelling() {
		t.Fatalf("Cancel of a waiting job: %d queued, the form's run stopped %v", len(u.run.Queue.Jobs), u.run.Current() != formRun || formRun.Cancelling())
	}
	idle("cancelled while waiting")
	u.Cancel()
	h.waitFor("the form's run to end", 10*time.Second, func() bool { return u.run.Current() == nil })

	// Running, it shows its progress; Cancel stops it.
	test.Tap(m.Parts().Generate)
	waitStarted(t, h, fake)
	busy("running", "")
	h.waitFor("the progress line", 10*time.Second, func() bool { return m.Parts().ProgressText.Text != "" })
	test.Tap(m.Parts().Cancel)
	if u.run.Current() == nil || !u.run.Current().Cancelling() {
		t.Fatal("Cancel did not stop the window's run")
	}
	h.waitFor("the run to end", 10*time.Second, func() bool { return u.run.Current() == nil })
	h.waitFor("the window to follow", 10*time.Second, func() bool { return !m.Parts().Progress.Visible() })
	idle("cancelled while running")
}

// TestRestoringAnInpaintResult: restoring an Inpaint result's settings into the form brings
// back its size, steps and seed and says plainly that the picture, mask and strength are
// not restored; the viewer's Reuse settings restores those too, in the Inpaint window
// (issue 36 item 24: it silently restored only part of the settings).
func TestRestoringAnInpaintResult(t *testing.T) {
	h := viewerHarness(t, 1)
	u := h.ui
	pic := u.Gallery.Path(h.at(0))
	meta := imageio.Metadata{Settings: schema.Settings{Prompt: "a red door", Seed: 42, Width: 64, Height: 48, Steps: 7,
		Image: pic, Strength: 0.6}}
	u.RestoreSettings(meta)
	h.settle()
	if u.ctl.Prompt.Text != "a red door" || u.ctl.Seed.Text != "42" || u.ctl.Steps.Text != "7" || u.ctl.Width.Text != "64" || u.ctl.Height.Text != "48" {
		t.Errorf("restored prompt %q, seed %q, steps %q, size %s×%s", u.ctl.Prompt.Text, u.ctl.Seed.Text, u.ctl.Steps.Text, u.ctl.Width.Text, u.ctl.Height.Text)
	}
	if msg := u.ErrorText(); !strings.Contains(msg, "not the inpainting") || !strings.Contains(msg, "0.60") || !strings.Contains(msg, filepath.Base(pic)) {
		t.Errorf("restoring an Inpaint result into the form says %q", msg)
	}
	u.Banner.Hide()
	u.ctl.Steps.SetText("30")
	m, ok := u.reuseInpaint(meta)
	if !ok || m == nil {
		t.Fatalf("Reuse settings did not open Inpaint: %q", u.ErrorText())
	}
	if math.Abs(m.Parts().Strength.Value-0.6) > 1e-9 || m.Parts().Path != pic || u.ctl.Steps.Text != "7" || u.ctl.Seed.Text != "42" {
		t.Errorf("Reuse settings: strength %v, picture %s, steps %q, seed %q", m.Parts().Strength.Value, m.Parts().Path, u.ctl.Steps.Text, u.ctl.Seed.Text)
	}
	if msg := u.ErrorText(); msg != "" {
		t.Errorf("Reuse settings restored everything but says %q", msg)
	}
}
