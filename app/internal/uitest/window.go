package uitest

import (
	"context"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/widgets"
)

// Window is a test window with the loop its UI posts to.
type Window struct {
	*Loop
	App fyne.App
	Win fyne.Window
}

// NewWindow opens a window titled Kleinbild, 1280×860, on a new temporary test app.
func NewWindow(t testing.TB) *Window {
	t.Helper()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	w.Resize(fyne.NewSize(1280, 860))
	return &Window{Loop: NewLoop(t), App: a, Win: w}
}

// CloseShell ends sh's life and waits for its background work while still serving the
// posts (Loop.Close), then closes its thumbnail cache, when it has one, and the window; a
// second call does nothing.
func (w *Window) CloseShell(sh *shell.Shell) {
	if w.Close(func() { sh.End(); sh.BG.Wait() }) {
		if sh.Thumbs != nil {
			sh.Thumbs.Close()
		}
		w.Win.Close()
	}
}

// TapDialogButton taps the button labelled text in the window's topmost dialog, failing
// the test when there is no dialog or no such button.
func (w *Window) TapDialogButton(text string) {
	w.T.Helper()
	top := w.Win.Canvas().Overlays().Top()
	if top == nil {
		w.T.Fatalf("no dialog is open (wanted button %q)", text)
	}
	b := FindButton(top, text)
	if b == nil {
		w.T.Fatalf("the dialog has no %q button", text)
	}
	test.Tap(b)
}

// ShellOptions say which of the shell's services a test shell has besides the window, the
// data folder, the lifetime and the tooltips.
type ShellOptions struct {
	// Settings keeps the settings in settings.json of the data folder and loads them.
	Settings bool
	// Thumbs gives a thumbnail cache in thumbs of the data folder.
	Thumbs bool
	// Banner gives an error banner and a status line.
	Banner bool
	// WhileAlive makes the shell's Post drop closures once its Life has ended (as the root
	// UI's does); otherwise Post is the loop's.
	WhileAlive bool
}

// NewShell is a shell over the window and the data folder dataDir, posting to the window's
// loop, with what o asks for. Its Life ends with its End.
func (w *Window) NewShell(dataDir string, o ShellOptions) *shell.Shell {
	w.T.Helper()
	sh := &shell.Shell{App: w.App, Win: w.Win, DataDir: dataDir, Post: w.Post}
	sh.Life, sh.End = context.WithCancel(context.Background())
	if o.WhileAlive {
		sh.Post = func(fn func()) {
			if sh.Life.Err() == nil {
				w.Post(fn)
			}
		}
	}
	if o.Settings {
		sh.Store = shell.SettingsFile{Path: filepath.Join(dataDir, "settings.json")}
		set, err := settings.Load(sh.Store.Path)
		if err != nil {
			w.T.Fatal(err)
		}
		sh.Settings = set
	}
	if o.Thumbs {
		sh.Thumbs = thumbcache.New(filepath.Join(dataDir, "thumbs"), thumbcache.Side, 2, 48<<20)
	}
	sh.Tips = widgets.NewTipLayer(w.Win.Canvas(), sh.Post)
	if o.Banner {
		sh.Banner = shell.NewBanner(sh.Tips)
		sh.Status = widget.NewLabel("")
		w.Banner = sh.ErrorText
	}
	return sh
}
