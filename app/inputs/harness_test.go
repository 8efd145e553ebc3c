package inputs

import (
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/engine/imageio"
	"kleinbild/internal/testhome"
)

// TestMain runs the tests with a temporary home and XDG folders.
func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }

// harness is a window on the test driver holding the References and Adapters sections in
// a scrolled column, as the form holds them, over the shell they use; it has its own event
// loop standing in for the Fyne UI goroutine (uitest.Loop): background work posts closures,
// and the test goroutine runs them while it waits.
type harness struct {
	*uitest.Window
	t        *testing.T
	sh       *shell.Shell
	win      fyne.Window
	refs     Refs
	adapters Adapters
	scroll   *container.Scroll
	// restored are the images whose settings the user chose to restore (RestoreSettings).
	restored []imageio.Metadata
}

// newHarness builds the sections over the data folder data, with the settings kept there,
// as a window opening on it does.
func newHarness(t *testing.T, data string) *harness {
	t.Helper()
	uw := uitest.NewWindow(t)
	w := uw.Win
	h := &harness{Window: uw, t: t, win: w}
	sh := uw.NewShell(data, uitest.ShellOptions{Settings: true, Thumbs: true, Banner: true})
	set := sh.Settings
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

// close ends the shell's background work while still serving its posts, like the window.
func (h *harness) close() { h.CloseShell(h.sh) }

// waitFor runs the event loop until cond holds, failing the test after uitest.MinWait (a
// loaded machine is slow; the bound only limits how long a failing test takes).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.WaitFor(what, 0, cond)
}

// typePath types text into the entry e and presses Enter.
func typePath(e *widgets.EscapeEntry, text string) {
	e.SetText("")
	test.Type(e, text)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}
