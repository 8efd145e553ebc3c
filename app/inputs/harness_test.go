package inputs

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/widgets"
	"kleinbild/engine/imageio"
	"kleinbild/internal/testfix/metapng"
	"kleinbild/internal/testhome"
)

// TestMain runs the tests with a temporary home and XDG folders.
func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }

// harness is a window on the test driver holding the References and Adapters sections in
// a scrolled column, as the form holds them, over the shell they use; it has its own event
// loop standing in for the Fyne UI goroutine: background work posts closures, and the
// test goroutine runs them while it waits.
type harness struct {
	t        *testing.T
	sh       *shell.Shell
	win      fyne.Window
	refs     Refs
	adapters Adapters
	scroll   *container.Scroll
	// restored are the images whose settings the user chose to restore (RestoreSettings).
	restored []imageio.Metadata

	mu     sync.Mutex
	queue  []func()
	closed bool
}

// newHarness builds the sections over the data folder data, with the settings kept there,
// as a window opening on it does.
func newHarness(t *testing.T, data string) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	w.Resize(fyne.NewSize(1280, 860))
	h := &harness{t: t, win: w}
	path := filepath.Join(data, "settings.json")
	set, err := settings.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sh := &shell.Shell{App: a, Win: w, Post: h.post, DataDir: data, Settings: set,
		Store:  shell.SettingsFile{Path: path},
		Thumbs: thumbcache.New(filepath.Join(data, "thumbs"), thumbcache.Side, 2, 48<<20)}
	sh.Life, sh.End = context.WithCancel(context.Background())
	sh.Tips = widgets.NewTipLayer(w.Canvas(), h.post)
	sh.Banner = shell.NewBanner(sh.Tips)
	sh.Status = widget.NewLabel("")
	sh.Status.Truncation = fyne.TextTruncateEllipsis // as in the window: long messages widen nothing
	h.sh = sh
	h.refs = NewRefs(sh, RefsDeps{EstimateSoon: func() {}, ShowAdded: func() {},
		RestoreSettings: func(m imageio.Metadata) {
			h.restored = append(h.restored, m)
			h.adapters.RestoreFromImage(m.Adapters) // as the form's restore does
		}})
	h.adapters = NewAdapters(sh, AdaptersDeps{EstimateSoon: func() {}, FormChanged: func() {}})
	h.scroll = container.NewVScroll(container.NewVBox(h.refs.Build(), h.adapters.Build()))
	h.adapters.PassScrollTo(h.scroll)
	w.SetContent(sh.Tips.Wrap(container.NewBorder(sh.Banner.Box, sh.Status, nil, nil, h.scroll)))
	h.refs.Restore(set.References)
	h.adapters.ApplySettings(set)
	t.Cleanup(h.close)
	return h
}

// close stops the background work while still serving its posts, as the real app does.
func (h *harness) close() {
	if h.closed {
		return
	}
	h.sh.End()
	done := make(chan struct{})
	go func() { h.sh.BG.Wait(); close(done) }()
	for {
		select {
		case <-done:
			h.closed = true
			h.sh.Thumbs.Close()
			h.win.Close()
			return
		default:
			if !h.pump() {
				time.Sleep(time.Millisecond)
			}
		}
	}
}

func (h *harness) post(fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.queue = append(h.queue, fn)
}

// pump runs the queued closures; it reports whether there were any.
func (h *harness) pump() bool {
	h.mu.Lock()
	q := h.queue
	h.queue = nil
	h.mu.Unlock()
	for _, fn := range q {
		fn()
	}
	return len(q) > 0
}

// waitFor runs the event loop until cond holds, failing the test after a minute (a
// loaded machine is slow; the bound only limits how long a failing test takes).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s (banner: %q)", what, h.sh.ErrorText())
		}
		if !h.pump() {
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// wait runs the event loop until done is closed.
func (h *harness) wait(what string, done <-chan struct{}) {
	h.t.Helper()
	h.waitFor(what, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
}

// settle runs the loop until it has been quiet for a moment.
func (h *harness) settle() {
	quiet := 0
	for quiet < 10 {
		if h.pump() {
			quiet = 0
		} else {
			quiet++
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// tapDialogButton taps the button labelled text in the topmost dialog.
func (h *harness) tapDialogButton(text string) {
	h.t.Helper()
	top := h.win.Canvas().Overlays().Top()
	if top == nil {
		h.t.Fatalf("no dialog is open (wanted button %q)", text)
	}
	b := findButton(top, text)
	if b == nil {
		h.t.Fatalf("the dialog has no %q button", text)
	}
	test.Tap(b)
}

// findButton returns the button labelled text inside o (including widget internals).
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	switch v := o.(type) {
	case *widgets.TipButton: // an icon button, named by its tooltip
		if v.Tip == text || (v.Text != "" && v.Text == text) {
			return &v.Button
		}
		return nil
	case *widget.Button:
		if v.Text == text {
			return v
		}
		return nil
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
	}
	return nil
}

// findEntry returns the entry showing text inside o (a chooser's path or name), or nil.
func findEntry(o fyne.CanvasObject, text string) *widgets.EscapeEntry {
	switch v := o.(type) {
	case *widgets.EscapeEntry:
		if v.Text == text {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if e := findEntry(c, text); e != nil {
				return e
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if e := findEntry(c, text); e != nil {
				return e
			}
		}
	}
	return nil
}

// findList returns the first list inside o, or nil.
func findList(o fyne.CanvasObject) *widget.List {
	switch v := o.(type) {
	case *widget.List:
		return v
	case *fyne.Container:
		for _, c := range v.Objects {
			if l := findList(c); l != nil {
				return l
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if l := findList(c); l != nil {
				return l
			}
		}
	}
	return nil
}

// typePath types text into the entry e and presses Enter.
func typePath(e *widgets.EscapeEntry, text string) {
	e.SetText("")
	test.Type(e, text)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// labelTexts collects the texts of the labels and rich texts inside o.
func labelTexts(o fyne.CanvasObject) []string {
	var out []string
	switch v := o.(type) {
	case *widget.Label:
		return []string{v.Text}
	case *widget.RichText:
		return []string{v.String()}
	case *fyne.Container:
		for _, c := range v.Objects {
			out = append(out, labelTexts(c)...)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			out = append(out, labelTexts(c)...)
		}
	}
	return out
}

// writeTestPNG writes a w×h test pattern PNG (with meta when given) and returns its path.
func writeTestPNG(t *testing.T, dir, name string, w, h int, meta *imageio.Metadata) string {
	t.Helper()
	return metapng.Write(t, dir, name, w, h, meta)
}
