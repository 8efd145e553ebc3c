package app

import (
	"kleinbild/app/form"
	"kleinbild/app/galleryui"
	"kleinbild/app/inputs"
	"kleinbild/app/modelui"
	"kleinbild/app/run"

	"context"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/widgets"
	"kleinbild/gpu/backends"
	"kleinbild/resources"
)

// UI is Kleinbild's window content and behaviour. Its methods run on the Fyne UI goroutine
// (directly from widget callbacks, or through fyne.Do) unless their comment says otherwise.
// It owns the components and the shell of services they share.
type UI struct {
	*shell.Shell
	opts Options

	// The components, each owning its widgets and state. They know each other only
	// through what wire (wiring.go) gives them.
	ctl      form.Controls
	fit      form.FitLine
	refs     inputs.Refs
	adapters inputs.Adapters
	view     galleryui.Viewer
	gal      galleryui.View
	model    modelui.Model
	run      run.Runner

	// rightTabs holds the gallery's and the queue's tabs.
	rightTabs *container.AppTabs
	// formTog hides and shows the form's column (formapi.go).
	formTog form.Toggle
	// quitDialog is the last "Quit Kleinbild?" question asked (tests).
	quitDialog dialog.Dialog
	// quit is the open "Quit Kleinbild?" question, or nil.
	quit *quitQuestion
	// closeWindow closes the window (tests replace it).
	closeWindow func()
}

// NewUI builds the Kleinbild interface into w: the generation controls, viewer and gallery.
// It shows the window's content but not the window; the gallery loads in the background.
// It locks the data folder until Close; when another instance holds it, the window opens
// read-only: it browses the gallery, generates nothing and writes nothing there.
func NewUI(a fyne.App, w fyne.Window, opts Options) (*UI, error) {
	return newUI(a, w, opts, fyne.Do)
}

func newUI(a fyne.App, w fyne.Window, opts Options, post func(func())) (*UI, error) {
	dataDir := opts.DataDir
	if dataDir == "" {
		d, err := settings.DefaultDataDir()
		if err != nil {
			return nil, err
		}
		dataDir = d
	}
	// The data folder is locked (and created) first: a second window on it is read-only
	// rather than overwriting the first one's gallery index and settings.
	unlock, readOnly, err := lockDataDir(dataDir)
	if err != nil {
		return nil, err
	}
	newThumbs := thumbcache.New
	if readOnly {
		newThumbs = thumbcache.NewReadOnly
	}
	u := &UI{opts: opts, Shell: &shell.Shell{
		App: a, Win: w, ScreenSize: opts.ScreenSize,
		DataDir:      dataDir,
		Store:        shell.SettingsFile{Path: filepath.Join(dataDir, "settings.json"), ReadOnly: readOnly},
		ReadOnly:     readOnly,
		Unlock:       unlock,
		GalleryReady: make(chan struct{}),
		Thumbs:       newThumbs(filepath.Join(dataDir, "thumbs"), thumbcache.Side, 2, 48<<20),
	}}
	u.wire()
	u.Life, u.End = context.WithCancel(context.Background())
	// Once stopped, the window is going away: late results are dropped rather than run
	// off the UI goroutine by a driver that has stopped its event loop.
	u.Post = func(fn func()) {
		if u.Life.Err() == nil {
			post(fn)
		}
	}
	// A damaged settings file is kept aside (not replaced by the defaults at the first
	// save), unless this window is read-only and writes nothing.
	load := settings.LoadKeepingDamaged
	if readOnly {
		load = settings.Load
	}
	set, setErr := load(u.Store.Path)
	if notes := set.Repair(backends.Names()); len(notes) > 0 && setErr == nil {
		setErr = fmt.Errorf("settings: %s", strings.Join(notes, "; "))
	}
	u.Settings = set
	u.model.SetDeviceChoice(set.Device)
	if opts.Backend != "" && !strings.EqualFold(opts.Backend, "default") {
		u.model.SetDeviceChoice(opts.Backend)
	}
	u.Tips = widgets.NewTipLayer(w.Canvas(), u.Post)
	u.PassKey = func(s *desktop.CustomShortcut) bool { return u.windowKey(s.ShortcutName()) }
	root := u.build()
	// The model first: it sets the variant's defaults, which remembered settings override.
	switch {
	case opts.ModelDir != "":
		u.SetModelDir(opts.ModelDir, false)
	case !modelui.SpecFromSettings(set).Empty():
		u.model.SetSpec(modelui.SpecFromSettings(set), false)
	default:
		u.model.Refresh()
	}
	u.ctl.ApplySettings(set)
	u.refs.Restore(set.References)
	u.run.SetUpQueue(filepath.Join(dataDir, "queue.json"))
	u.run.Queue.Retitle() // a queue kept from the last session counts in its tab
	u.adapters.ApplySettings(set)
	if opts.Prompt != "" {
		u.ctl.Prompt.SetText(opts.Prompt)
	}
	u.ctl.WatchForm()
	if setErr != nil {
		u.ShowError(setErr)
	}
	if readOnly {
		u.startReadOnly()
	}

	w.SetContent(u.Tips.Wrap(root))
	w.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { u.routeDrop(uris) })
	for _, sc := range widgets.GenerateShortcuts() {
		w.Canvas().AddShortcut(sc, func(fyne.Shortcut) { u.Generate() })
	}
	// Ctrl+Q (Cmd+Q) and the close button close the window, which quits, after asking
	// while an image is being made: the window's close handler stops the run and saves
	// what is pending. Ctrl+L (Cmd+L) puts the cursor in the prompt. Both work from
	// anywhere in the window: the text fields pass them on (windowKey).
	for _, sc := range windowShortcuts {
		w.Canvas().AddShortcut(sc, func(s fyne.Shortcut) { u.windowKey(s.ShortcutName()) })
	}
	for _, e := range []*widgets.ShortcutEntry{u.ctl.Prompt, u.ctl.Negative, u.ctl.Width, u.ctl.Height, u.ctl.Steps, u.ctl.Seed, u.gal.Search} {
		e.PassOn = u.PassKey
	}
	u.closeWindow = w.Close
	w.SetCloseIntercept(u.requestClose)
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape && u.Chooser != nil {
			u.Chooser.Hide()
			return
		}
		if ev.Name == fyne.KeyEscape && u.EscapeDialog(w.Canvas()) {
			return // a dialog was open: Escape closed it, and never cancels the run
		}
		if u.gal.TypedKey(ev) {
			return
		}
		if ev.Name == fyne.KeyEscape && u.run.Busy() {
			u.Cancel()
		}
		u.view.TypedKey(ev)
	})
	u.ctl.FollowFocus()
	go u.loadGallery(filepath.Join(dataDir, "gallery"))
	u.model.ProbeDevices()
	return u, nil
}

// Stop marks the window as going away: the running generation is cancelled and background
// work no longer updates widgets. Call it when the window closes or the app stops; it is
// safe from any goroutine and may be called more than once.
func (u *UI) Stop() { u.End() }

// Close stops the UI, waits for background work and releases the engine and workers. Call
// it once the window has closed.
func (u *UI) Close() {
	u.End()
	u.BG.Wait()
	u.ctl.FlushForm()
	u.Thumbs.Close()
	u.run.CloseGenerator()
	if u.Unlock != nil {
		u.Unlock() // last: nothing of this window writes to the data folder any more
		u.Unlock = nil
	}
}

// loadGallery opens the gallery folder off the UI goroutine.
func (u *UI) loadGallery(dir string) {
	g, rep, err := gallery.Open(context.Background(), dir, gallery.Options{TrashDir: filepath.Join(u.DataDir, "trash"), ReadOnly: u.ReadOnly})
	u.Shell.ForgetThumbs(g, rep.Expired)
	u.Post(func() {
		defer close(u.GalleryReady)
		if g == nil {
			u.ShowError(fmt.Errorf("the gallery could not be opened, so new images cannot be saved: %w", err))
			return
		}
		u.Gallery = g
		if err != nil {
			u.ShowError(err)
		}
		u.SetStatus("Images are saved in " + g.Dir())
		if u.ReadOnly {
			u.SetStatus("Read-only: showing the images in " + g.Dir())
		}
		notice := u.UnreadableNotice(rep.Unreadable)
		switch {
		case notice != "":
			u.AddNotice(notice)
		case len(rep.Unreadable) > 0:
			// the same files were reported on an earlier start
		case rep.Rebuilt && rep.Reason != "no index" && g.Len() > 0:
			u.SetStatus("The gallery index was rebuilt from the images (" + rep.Reason + ").")
		}
		u.gal.Refresh()
		u.gal.ShowLastViewed()
	})
}

// sidePanelWidth is the width of the generation controls.
const sidePanelWidth = 300

// build creates the widget tree and returns its root.
func (u *UI) build() fyne.CanvasObject {
	u.Banner = shell.NewBanner(u.Tips)
	u.Status = widget.NewLabel("")
	u.Status.Truncation = fyne.TextTruncateEllipsis
	u.Status.SizeName = theme.SizeNameCaptionText

	logo := canvas.NewImageFromResource(resources.Icon)
	logo.FillMode = canvas.ImageFillContain
	logo.SetMinSize(fyne.NewSquareSize(28))
	title := widget.NewLabelWithStyle("Kleinbild", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	header := container.NewBorder(nil, nil,
		container.NewHBox(u.buildFormToggle(), logo, title), container.NewHBox(u.model.BuildButton()))

	// The side panel scrolls its form and keeps Generate in view (see form.Controls.Build).
	sideWidth := canvas.NewRectangle(color.Transparent)
	sideWidth.SetMinSize(fyne.NewSize(sidePanelWidth, 0))
	u.run.BuildQueue() // its Add button sits beside Generate; the jobs have their own tab
	u.run.Queue.Confirm = u.confirmCancelAll
	u.run.Queue.OnOpen = u.openJob
	noQueue := canvas.NewRectangle(color.Transparent) // the form's old place of the queue
	noQueue.Hide()
	side := container.NewStack(sideWidth, u.ctl.Build(form.PanelParts{
		Refs: u.refs.Build, Adapters: u.adapters.Build, Scrolled: u.adapters.PassScrollTo,
		QueueAdd: u.run.Queue.Add, Queue: noQueue, WrapFit: u.fit.Wrap,
	}))

	right := container.NewAppTabs(container.NewTabItemWithIcon("Gallery", theme.MediaPhotoIcon(), u.gal.Build()))
	right.Append(u.run.Queue.BuildTab(right))
	u.rightTabs = right
	split := container.NewHSplit(u.run.BuildViewColumn(u.view.Build()), right)
	split.Offset = 0.64

	top := container.NewVBox(container.NewPadded(header), widget.NewSeparator())
	bottom := container.NewVBox(widget.NewSeparator(), u.Status)
	// The banner lies over the foot of the viewer and gallery: it moves nothing and takes
	// no room from the image (issue 36 item 23: under the header it pushed the window's
	// content down and the image shrank from 91 % to 81 %).
	center := container.New(shell.BannerOverlay{}, split, u.Banner.Box)
	// The form comes first in the tree, so that Tab goes from the prompt through the form
	// (the tab order is the tree's order; the viewer's toolbar and the gallery came first).
	left := container.NewHBox(side, widget.NewSeparator())
	u.formTog.Column = left
	u.setFormHidden(u.Settings.FormHidden, false)
	root := container.New(layout.NewBorderLayout(top, bottom, left, nil), left, top, center, bottom)
	u.Banner.Root = center
	return root
}
