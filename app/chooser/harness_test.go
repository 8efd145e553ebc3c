package chooser

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/widgets"
	"kleinbild/internal/testfix/metapng"
	"kleinbild/internal/testhome"
)

// TestMain runs the tests with a temporary home and XDG folders.
func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }

// harness is a window on the test driver with the shell a chooser uses, and its own event
// loop standing in for the Fyne UI goroutine: background work posts closures, and the
// test goroutine runs them while it waits.
type harness struct {
	t   *testing.T
	sh  *shell.Shell
	win fyne.Window

	mu    sync.Mutex
	queue []func()
}

// newHarness opens a window whose data folder (thumbnails) is data.
func newHarness(t *testing.T, data string) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	w.Resize(fyne.NewSize(1280, 860))
	h := &harness{t: t, win: w}
	sh := &shell.Shell{App: a, Win: w, Post: h.post, DataDir: data,
		Thumbs: thumbcache.New(filepath.Join(data, "thumbs"), thumbcache.Side, 2, 48<<20)}
	sh.Life, sh.End = context.WithCancel(context.Background())
	sh.Tips = widgets.NewTipLayer(w.Canvas(), h.post)
	w.SetContent(sh.Tips.Wrap(widget.NewLabel("")))
	h.sh = sh
	t.Cleanup(h.close)
	return h
}

// close stops the background work while still serving its posts, as the real app does.
func (h *harness) close() {
	h.sh.End()
	done := make(chan struct{})
	go func() { h.sh.BG.Wait(); close(done) }()
	for {
		select {
		case <-done:
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
			h.t.Fatalf("timed out waiting for %s", what)
		}
		if !h.pump() {
			time.Sleep(2 * time.Millisecond)
		}
	}
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

// loaded runs the event loop until c has listed its folder.
func (h *harness) loaded(c *Chooser) {
	h.t.Helper()
	h.waitFor("the chooser's listing", func() bool { return !c.loading })
}

// enterPath types text into the chooser's path and presses Enter.
func (h *harness) enterPath(c *Chooser, text string) {
	h.t.Helper()
	c.path.SetText("")
	test.Type(c.path, text)
	c.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.loaded(c)
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

// fakeHome points HOME and XDG_CONFIG_HOME at a new folder with a Pictures folder named in
// user-dirs.dirs; it returns home and the pictures folder.
func fakeHome(t *testing.T) (home, pictures string) {
	t.Helper()
	home = t.TempDir()
	pictures = filepath.Join(home, "Bilder")
	if err := os.MkdirAll(pictures, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, ".config")
	os.MkdirAll(cfg, 0o755)
	os.WriteFile(filepath.Join(cfg, "user-dirs.dirs"), []byte("# written by xdg-user-dirs-update\nXDG_PICTURES_DIR=\"$HOME/Bilder\"\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", cfg)
	return home, pictures
}

// writeTestPNG writes a w×h test pattern PNG and returns its path.
func writeTestPNG(t *testing.T, dir, name string, w, h int) string {
	t.Helper()
	return metapng.Write(t, dir, name, w, h, nil)
}

// itemIndex is the list row of name in c, or -1.
func itemIndex(c *Chooser, name string) int {
	for i, it := range c.items {
		if it.name == name {
			return i
		}
	}
	return -1
}

func itemNames(c *Chooser) []string {
	var out []string
	for _, it := range c.items {
		out = append(out, it.name)
	}
	return out
}

// startIn is a chooser's start that shows dir.
func startIn(dir string) func() string { return func() string { return dir } }
