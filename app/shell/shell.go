// Package shell holds what every component of Kleinbild's window shares: the window and
// app, the UI goroutine, the banner and status line, the tooltips, the data folder with its
// settings, gallery and thumbnails, the window's lifetime, Escape's dialogs, and the small
// pieces of look the components have in common. It knows none of the components.
package shell

import (
	"context"
	"slices"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/fserr"
	"kleinbild/app/gallery"
	"kleinbild/app/settings"
	"kleinbild/app/thumbcache"
	"kleinbild/app/widgets"
)

// Shell is what every component of the window shares: the window and app, the UI
// goroutine, the banner and status line, the tooltips, the data folder with its settings,
// gallery and thumbnails, and the window's lifetime. It knows none of the components.
type Shell struct {
	App fyne.App
	Win fyne.Window
	// ScreenSize is the usable size of the screen the window is on (Options.ScreenSize of
	// package app; nil for none).
	ScreenSize func() fyne.Size
	// Post runs fn on the UI goroutine: fyne.Do, or the test's own event loop.
	Post func(fn func())

	DataDir  string
	Settings settings.Settings // as last remembered
	Store    SettingsFile
	// ReadOnly is set when another instance holds the data folder: this window browses it
	// and writes nothing there. Unlock releases the folder's lock.
	ReadOnly bool
	Unlock   func()

	Gallery      *gallery.Gallery // nil until loaded, or when it could not be opened
	GalleryReady chan struct{}
	Thumbs       *thumbcache.Thumbnailer

	Life context.Context // cancelled by Close; parent of every generation
	End  context.CancelFunc
	BG   sync.WaitGroup // background goroutines Close waits for

	Banner *Banner
	Status *widget.Label
	// Tips shows the icon buttons' tooltips above the window content.
	Tips *widgets.TipLayer
	// Chooser is the file chooser open in the window, or nil (Escape hides it).
	Chooser interface{ Hide() }
	// PassKey is the text fields' ShortcutEntry.PassOn: it runs the window's own
	// shortcuts (Ctrl+Q, Ctrl+L), which a focused field would swallow.
	PassKey func(*desktop.CustomShortcut) bool
	// Escapes closes the dialogs Escape closes as their Close button does, by the pop-up
	// they are shown in (EscapeCloses).
	Escapes map[fyne.CanvasObject]func()
}

// SetStatus shows a passing message in the status line.
func (sh *Shell) SetStatus(msg string) { sh.Status.SetText(msg) }

// BannerTopic is the condition a banner message belongs to: the message goes when its
// condition goes (see ClearBanner).
type BannerTopic int

const (
	TopicOther BannerTopic = iota // stays until dismissed or replaced
	TopicModel                    // no usable model: goes once one is chosen
	TopicRefs                     // a reference image problem: goes after a good run or once the reference is removed
	TopicRun                      // a failed generation: goes after a good run
)

// ShowError puts err in the banner in plain words.
func (sh *Shell) ShowError(err error) { sh.ShowErrorAbout(TopicOther, err) }

// ShowErrorAbout puts err in the banner as a message about topic.
func (sh *Shell) ShowErrorAbout(topic BannerTopic, err error) {
	if err == nil {
		return
	}
	sh.Banner.Show(fserr.Friendly(err), true)
	sh.Banner.Topic = topic
}

// ShowNotice puts an informational message in the banner.
func (sh *Shell) ShowNotice(msg string) {
	sh.Banner.Show(msg, false)
	sh.Banner.Topic = TopicOther
}

// ClearBanner hides the banner when its message is about one of topics.
func (sh *Shell) ClearBanner(topics ...BannerTopic) {
	b := sh.Banner
	if b.Box.Visible() && slices.Contains(topics, b.Topic) {
		b.Hide()
		b.Topic = TopicOther
	}
}

// ErrorText is the banner's message ("" when hidden), for tests.
func (sh *Shell) ErrorText() string {
	if !sh.Banner.Box.Visible() {
		return ""
	}
	return sh.Banner.Text.Text
}
