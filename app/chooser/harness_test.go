package chooser

import (
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/shell"
	"kleinbild/internal/testfix/metapng"
	"kleinbild/internal/testhome"
)

// TestMain runs the tests with a temporary home and XDG folders.
func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }

// harness is a window on the test driver with the shell a chooser uses, and its own event
// loop standing in for the Fyne UI goroutine (uitest.Loop): background work posts closures,
// and the test goroutine runs them while it waits.
type harness struct {
	*uitest.Window
	t   *testing.T
	sh  *shell.Shell
	win fyne.Window
}

// newHarness opens a window whose data folder (thumbnails) is data.
func newHarness(t *testing.T, data string) *harness {
	t.Helper()
	uw := uitest.NewWindow(t)
	h := &harness{Window: uw, t: t, win: uw.Win}
	sh := uw.NewShell(data, uitest.ShellOptions{Thumbs: true})
	uw.Win.SetContent(sh.Tips.Wrap(widget.NewLabel("")))
	h.sh = sh
	t.Cleanup(h.close)
	return h
}

// close ends the shell's background work while still serving its posts, like the window.
func (h *harness) close() { h.CloseShell(h.sh) }

// waitFor runs the event loop until cond holds, failing the test after uitest.MinWait (a
// loaded machine is slow; the bound only limits how long a failing test takes).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.WaitFor(what, 0, cond)
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
