package app

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"kleinbild/app/gallery"
	"kleinbild/app/shell"
)

func TestCorruptIndexIsRebuilt(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h1 := newHarness(t, data, tinyModel(t), fake.open)
	h1.generate("one")
	h1.generate("two")
	h1.close()

	index := filepath.Join(data, "gallery", gallery.IndexName)
	for _, damage := range []func(){
		func() { os.WriteFile(index, []byte(`{"version":1,"entries":[{"file":`), 0o644) },
		func() { os.Remove(index) },
		func() {
			os.WriteFile(index, []byte(`{"version":1,"entries":[{"file":"ghost.png","sha256":"x"}]}`), 0o644)
		},
	} {
		damage()
		h := newHarness(t, data, tinyModel(t), fake.open)
		u := h.ui
		if u.Gallery.Len() != 2 {
			t.Fatalf("rebuilt gallery has %d images, want 2", u.Gallery.Len())
		}
		a, _ := u.Gallery.At(0)
		b, _ := u.Gallery.At(1)
		if a.Meta.Prompt != "two" || b.Meta.Prompt != "one" || a.SHA256 == "" {
			t.Errorf("rebuilt entries: %q, %q", a.Meta.Prompt, b.Meta.Prompt)
		}
		raw, err := os.ReadFile(index)
		var idx struct{ Entries []json.RawMessage }
		if err != nil || json.Unmarshal(raw, &idx) != nil || len(idx.Entries) != 2 {
			t.Errorf("index not rewritten: %v %s", err, raw)
		}
		h.close()
	}
}

// laptopWindow is the content area of a window on a 1366×768 screen, less about 60 pixels
// of title bar and desktop panel.
var laptopWindow = fyne.NewSize(1366, 708)

// windowMin is the smallest size the window can take: its content's minimum size plus the
// canvas padding (a real window cannot be made smaller).
func windowMin(w fyne.Window) fyne.Size {
	return w.Canvas().Content().MinSize().Add(fyne.NewSquareSize(2 * theme.Padding()))
}

// A 1366×768 laptop screen holds the window with every control reachable: Generate and the
// fit line under it stay in view with references added and an image shown, also at the
// window's smallest size, and Cancel with the progress while a run goes on. (Before: the
// window could not be smaller than 1104×746 and Generate was scrolled out of view.)
func TestWindowFitsLaptopScreen(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	dir := t.TempDir()
	var uris []fyne.URI
	for _, n := range []string{"a.png", "b.png", "c.png"} {
		uris = append(uris, storage.NewFileURI(writeTestPNG(t, dir, n, 96, 80, nil)))
	}
	h.drop(uris)
	if len(u.refs.RefPaths()) != 3 {
		t.Fatalf("refs %v", u.refs.RefPaths())
	}
	h.waitFor("the fit line", 10*time.Second, func() bool { return u.ctl.Fit.Visible() && u.ctl.Fit.Text != "" })

	small := fyne.NewSize(1024, 640)
	if m := windowMin(h.win); m.Width > small.Width || m.Height > small.Height {
		t.Errorf("the window cannot be smaller than %v, want at most %v", m, small)
	}
	for _, size := range []fyne.Size{laptopWindow, windowMin(h.win), fyne.NewSize(1280, 860)} {
		h.win.Resize(size.Max(windowMin(h.win)))
		requireShown(t, h.win, "Generate and fit line", u.ctl.Generate, u.ctl.Fit)
		requireShown(t, h.win, "image actions (their menu)", u.view.MoreBtn)
	}

	// While running: Cancel (the same button) and the progress stay in view.
	h.win.Resize(laptopWindow)
	fake.block = true
	test.Tap(u.ctl.Generate)
	<-fake.started
	h.settle()
	if u.ctl.Generate.Text != "Cancel" {
		t.Fatalf("main button %q while running", u.ctl.Generate.Text)
	}
	requireShown(t, h.win, "Cancel and progress", u.ctl.Generate, u.view.ProgressText, u.view.Bar)
	u.Cancel()
	h.waitFor("the run to end", 10*time.Second, func() bool { return u.run.Current() == nil })
}

// Issue 12, defect 4: banners and the status line clear when their condition goes.
func TestMessagesClearWithTheirCondition(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), "", fake.open)
	u := h.ui

	// The model banner goes once a model is chosen.
	u.ctl.Prompt.SetText("x")
	test.Tap(u.ctl.Generate)
	if !strings.Contains(strings.ToLower(u.ErrorText()), "model") {
		t.Fatalf("no model banner: %q", u.ErrorText())
	}
	h.tapDialogButton("Close")
	if err := u.SetModelDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	if u.ErrorText() != "" {
		t.Errorf("banner %q stays after choosing a model", u.ErrorText())
	}

	// A reference error goes after a later successful run.
	dir := t.TempDir()
	u.AddReference(filepath.Join(dir, "missing.png"))
	if !strings.Contains(u.ErrorText(), "missing.png") {
		t.Fatalf("no reference error: %q", u.ErrorText())
	}
	out := h.generate("a fox")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	h.settle()
	if u.ErrorText() != "" {
		t.Errorf("banner %q stays after a successful run", u.ErrorText())
	}

	// A reference that vanished fails the run; removing it clears the error.
	ref := writeTestPNG(t, dir, "ref.png", 64, 64, nil)
	u.AddReference(ref)
	if err := os.Remove(ref); err != nil {
		t.Fatal(err)
	}
	out = h.generate("a fox with a reference")
	if out.Err == nil || !strings.Contains(u.ErrorText(), "ref.png") {
		t.Fatalf("run with a vanished reference: %v, banner %q", out.Err, u.ErrorText())
	}
	u.refs.Remove(ref)
	if u.ErrorText() != "" {
		t.Errorf("banner %q stays after removing the bad reference", u.ErrorText())
	}

	// The seed-lock notice goes when a run starts.
	u.gal.SelectEntry(u.view.Shown.File, nil)
	h.settle()
	test.Tap(findButton(u.view.Actions, "Reuse seed"))
	if !strings.Contains(u.Status.Text, "locked") {
		t.Fatalf("status %q after Reuse seed", u.Status.Text)
	}
	fake.block = true
	startAndPreview(t, h, fake, "a long run")
	if strings.Contains(u.Status.Text, "locked") {
		t.Errorf("status %q stays while a run is going", u.Status.Text)
	}
	u.Cancel()
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
}

// TestBannerMovesNothing shows a long error and takes it away again: the banner lies over
// the foot of the viewer and gallery, whole and inside the window, and the form, the
// viewer's toolbar, the gallery and the image keep their places and sizes. (Issue 36 item
// 23: under the header it pushed everything down and the image shrank from 91 % to 81 %.
// Before that, issue 28: it was drawn over the form and left a band after it went.)
func TestBannerMovesNothing(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	u.gal.SelectEntry(h.at(0).File, nil)
	h.win.Resize(fyne.NewSize(1008, 552))
	h.settle()
	relayout(h.win.Canvas().Content())
	abs := func(o fyne.CanvasObject) fyne.Position {
		return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	}
	type place struct {
		pos  fyne.Position
		size fyne.Size
	}
	objs := []fyne.CanvasObject{u.ctl.Prompt, u.ctl.Generate, u.view.Actions, u.gal.Root, u.view.Image}
	places := func() []place {
		var p []place
		for _, o := range objs {
			p = append(p, place{abs(o), o.Size()})
		}
		return p
	}
	before := places()
	u.ShowErrorAbout(shell.TopicRefs, errors.New(strings.Repeat("one reference could not be read: unknown format. ", 6)))
	if u.Banner.Box.Size().Height < u.Banner.Box.MinSize().Height-0.5 {
		t.Errorf("banner %v high, needs %v", u.Banner.Box.Size().Height, u.Banner.Box.MinSize().Height)
	}
	requireShown(t, h.win, "the banner", u.Banner.Box)
	for i, p := range places() {
		if p != before[i] {
			t.Errorf("with the banner, %T is at %v size %v, was at %v size %v", objs[i], p.pos, p.size, before[i].pos, before[i].size)
		}
	}
	bp, tb := abs(u.Banner.Box), abs(u.view.Actions)
	if bp.Y < tb.Y+u.view.Actions.Size().Height || bp.X < abs(u.ctl.Generate).X+u.ctl.Generate.Size().Width {
		t.Errorf("the banner at %v covers the viewer's toolbar (%v) or the form", bp, tb)
	}
	u.ClearBanner(shell.TopicRefs)
	if u.Banner.Box.Visible() {
		t.Error("the banner stays")
	}
	for i, p := range places() {
		if p != before[i] {
			t.Errorf("after the banner, %T is at %v size %v, was at %v size %v", objs[i], p.pos, p.size, before[i].pos, before[i].size)
		}
	}
}

// TestCtrlQCloses: Ctrl+Q (Cmd+Q) closes the window, which quits the app. (Before: it did
// nothing.)
func TestCtrlQCloses(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	closed := false
	h.win.SetOnClosed(func() { closed = true })
	h.win.Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault})
	if !closed {
		t.Error("Ctrl+Q did not close the window")
	}
	h.win = h.ui.App.NewWindow("spare") // the harness closes a window at the end; the test driver closes one only once
}
