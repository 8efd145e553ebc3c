package app

import (
	"context"
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/fserr"
	"kleinbild/app/gallery"
	"kleinbild/app/settings"
	"kleinbild/app/thumbcache"
	"kleinbild/app/widgets"
	"kleinbild/gpu/backends"
	"kleinbild/resources"
)

// UI is Kleinbild's window content and behaviour. Its methods run on the Fyne UI goroutine
// (directly from widget callbacks, or through fyne.Do) unless their comment says otherwise.
// It owns the components and the shell of services they share.
type UI struct {
	*shell

	// The components, each owning its widgets and state. They know each other only
	// through what wire (wiring.go) gives them.
	ctl      controls
	fit      fitLine
	refs     refsSection
	adapters adaptersSection
	view     viewer
	gal      galleryView
	model    modelSettings
	run      runner

	// rightTabs holds the gallery's and the queue's tabs.
	rightTabs *container.AppTabs
	// formTog hides and shows the form's column (formtoggle.go).
	formTog formToggle
	// quitDialog is the last "Quit Kleinbild?" question asked (tests).
	quitDialog dialog.Dialog
	// quit is the open "Quit Kleinbild?" question, or nil.
	quit *quitQuestion
	// closeWindow closes the window (tests replace it).
	closeWindow func()
}

// shell is what every component of the window shares: the window and app, the UI
// goroutine, the banner and status line, the tooltips, the data folder with its settings,
// gallery and thumbnails, and the window's lifetime. It knows none of the components.
type shell struct {
	app  fyne.App
	win  fyne.Window
	opts Options
	// post runs fn on the UI goroutine: fyne.Do, or the test's own event loop.
	post func(fn func())

	dataDir  string
	settings settings.Settings // as last remembered
	store    settingsFile
	// readOnly is set when another instance holds the data folder: this window browses it
	// and writes nothing there (see lockDataDir). unlock releases the folder's lock.
	readOnly bool
	unlock   func()

	gallery      *gallery.Gallery // nil until loaded, or when it could not be opened
	galleryReady chan struct{}
	thumbs       *thumbcache.Thumbnailer

	life context.Context // cancelled by Close; parent of every generation
	stop context.CancelFunc
	bg   sync.WaitGroup // background goroutines Close waits for

	banner *banner
	status *widget.Label
	// tips shows the icon buttons' tooltips above the window content.
	tips *widgets.TipLayer
	// chooser is the file chooser open in the window, or nil (Escape closes it).
	chooser *fileChooser
	// passKey is the text fields' ShortcutEntry.PassOn: it runs the window's own
	// shortcuts (Ctrl+Q, Ctrl+L), which a focused field would swallow.
	passKey func(*desktop.CustomShortcut) bool
	// escapes closes the dialogs Escape closes as their Close button does, by the pop-up
	// they are shown in (escapeCloses).
	escapes map[fyne.CanvasObject]func()
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
	u := &UI{shell: &shell{
		app: a, win: w, opts: opts,
		dataDir:      dataDir,
		store:        settingsFile{path: filepath.Join(dataDir, "settings.json"), readOnly: readOnly},
		readOnly:     readOnly,
		unlock:       unlock,
		galleryReady: make(chan struct{}),
		thumbs:       newThumbs(filepath.Join(dataDir, "thumbs"), thumbcache.Side, 2, 48<<20),
	}}
	u.wire()
	u.life, u.stop = context.WithCancel(context.Background())
	// Once stopped, the window is going away: late results are dropped rather than run
	// off the UI goroutine by a driver that has stopped its event loop.
	u.post = func(fn func()) {
		if u.life.Err() == nil {
			post(fn)
		}
	}
	// A damaged settings file is kept aside (not replaced by the defaults at the first
	// save), unless this window is read-only and writes nothing.
	load := settings.LoadKeepingDamaged
	if readOnly {
		load = settings.Load
	}
	set, setErr := load(u.store.path)
	if notes := set.Repair(backends.Names()); len(notes) > 0 && setErr == nil {
		setErr = fmt.Errorf("settings: %s", strings.Join(notes, "; "))
	}
	u.settings = set
	u.model.dev.choice = set.Device
	if opts.Backend != "" && !strings.EqualFold(opts.Backend, "default") {
		u.model.dev.choice = opts.Backend
	}
	u.tips = widgets.NewTipLayer(w.Canvas(), u.post)
	u.passKey = func(s *desktop.CustomShortcut) bool { return u.windowKey(s.ShortcutName()) }
	root := u.build()
	// The model first: it sets the variant's defaults, which remembered settings override.
	switch {
	case opts.ModelDir != "":
		u.SetModelDir(opts.ModelDir, false)
	case !specFromSettings(set).empty():
		u.model.setSpec(specFromSettings(set), false)
	default:
		u.model.refresh()
	}
	u.ctl.applySettings(set)
	u.refs.restore(set.References)
	u.run.setUpQueue(filepath.Join(dataDir, "queue.json"))
	u.run.queue.Retitle() // a queue kept from the last session counts in its tab
	u.adapters.applySettings(set)
	if opts.Prompt != "" {
		u.ctl.prompt.SetText(opts.Prompt)
	}
	u.ctl.watchForm()
	if setErr != nil {
		u.showError(setErr)
	}
	if readOnly {
		u.startReadOnly()
	}

	w.SetContent(u.tips.Wrap(root))
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
	for _, e := range []*widgets.ShortcutEntry{u.ctl.prompt, u.ctl.negative, u.ctl.width, u.ctl.height, u.ctl.steps, u.ctl.seed, u.gal.search} {
		e.PassOn = u.passKey
	}
	u.closeWindow = w.Close
	w.SetCloseIntercept(u.requestClose)
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape && u.chooser != nil {
			u.chooser.dlg.Hide()
			return
		}
		if ev.Name == fyne.KeyEscape && u.escapeDialog(w.Canvas()) {
			return // a dialog was open: Escape closed it, and never cancels the run
		}
		if u.gal.typedKey(ev) {
			return
		}
		if ev.Name == fyne.KeyEscape && u.run.busy() {
			u.Cancel()
		}
		u.view.typedKey(w.Canvas(), u.view.image, ev)
	})
	u.followFocus()
	go u.loadGallery(filepath.Join(dataDir, "gallery"))
	u.model.probeDevices()
	return u, nil
}

// Stop marks the window as going away: the running generation is cancelled and background
// work no longer updates widgets. Call it when the window closes or the app stops; it is
// safe from any goroutine and may be called more than once.
func (u *UI) Stop() { u.stop() }

// Close stops the UI, waits for background work and releases the engine and workers. Call
// it once the window has closed.
func (u *UI) Close() {
	u.stop()
	u.bg.Wait()
	u.ctl.flushForm()
	u.thumbs.Close()
	u.run.closeGenerator()
	if u.unlock != nil {
		u.unlock() // last: nothing of this window writes to the data folder any more
		u.unlock = nil
	}
}

// loadGallery opens the gallery folder off the UI goroutine.
func (u *UI) loadGallery(dir string) {
	g, rep, err := gallery.Open(context.Background(), dir, gallery.Options{TrashDir: filepath.Join(u.dataDir, "trash"), ReadOnly: u.readOnly})
	u.forgetThumbs(g, rep.Expired)
	u.post(func() {
		defer close(u.galleryReady)
		if g == nil {
			u.showError(fmt.Errorf("the gallery could not be opened, so new images cannot be saved: %w", err))
			return
		}
		u.gallery = g
		if err != nil {
			u.showError(err)
		}
		u.setStatus("Images are saved in " + g.Dir())
		if u.readOnly {
			u.setStatus("Read-only: showing the images in " + g.Dir())
		}
		notice := u.unreadableNotice(rep.Unreadable)
		switch {
		case notice != "":
			u.addNotice(notice)
		case len(rep.Unreadable) > 0:
			// the same files were reported on an earlier start
		case rep.Rebuilt && rep.Reason != "no index" && g.Len() > 0:
			u.setStatus("The gallery index was rebuilt from the images (" + rep.Reason + ").")
		}
		u.gal.refresh()
		u.gal.showLastViewed()
	})
}

// sidePanelWidth is the width of the generation controls.
const sidePanelWidth = 300

// build creates the widget tree and returns its root.
func (u *UI) build() fyne.CanvasObject {
	u.banner = newBanner(u.tips)
	u.status = widget.NewLabel("")
	u.status.Truncation = fyne.TextTruncateEllipsis
	u.status.SizeName = theme.SizeNameCaptionText

	logo := canvas.NewImageFromResource(resources.Icon)
	logo.FillMode = canvas.ImageFillContain
	logo.SetMinSize(fyne.NewSquareSize(28))
	title := widget.NewLabelWithStyle("Kleinbild", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	header := container.NewBorder(nil, nil,
		container.NewHBox(u.buildFormToggle(), logo, title), container.NewHBox(u.model.buildButton()))

	// The side panel scrolls its form and keeps Generate in view (see controls.build).
	sideWidth := canvas.NewRectangle(color.Transparent)
	sideWidth.SetMinSize(fyne.NewSize(sidePanelWidth, 0))
	u.run.buildQueue() // its Add button sits beside Generate; the jobs have their own tab
	u.run.queue.Confirm = u.confirmCancelAll
	u.run.queue.OnOpen = u.openJob
	noQueue := canvas.NewRectangle(color.Transparent) // the form's old place of the queue
	noQueue.Hide()
	side := container.NewStack(sideWidth, u.ctl.build(panelParts{
		refs: u.refs.build, adapters: u.adapters.build, scrolled: u.adapters.passScrollTo,
		queueAdd: u.run.queue.Add, queue: noQueue, wrapFit: u.fit.wrap,
	}))

	right := container.NewAppTabs(container.NewTabItemWithIcon("Gallery", theme.MediaPhotoIcon(), u.gal.build()))
	right.Append(u.run.queue.BuildTab(right))
	u.rightTabs = right
	split := container.NewHSplit(u.run.buildViewColumn(u.view.build()), right)
	split.Offset = 0.64

	top := container.NewVBox(container.NewPadded(header), widget.NewSeparator())
	bottom := container.NewVBox(widget.NewSeparator(), u.status)
	// The banner lies over the foot of the viewer and gallery: it moves nothing and takes
	// no room from the image (issue 36 item 23: under the header it pushed the window's
	// content down and the image shrank from 91 % to 81 %).
	center := container.New(bannerOverlay{}, split, u.banner.box)
	// The form comes first in the tree, so that Tab goes from the prompt through the form
	// (the tab order is the tree's order; the viewer's toolbar and the gallery came first).
	left := container.NewHBox(side, widget.NewSeparator())
	u.formTog.column = left
	u.setFormHidden(u.settings.FormHidden, false)
	root := container.New(layout.NewBorderLayout(top, bottom, left, nil), left, top, center, bottom)
	u.banner.root = center
	return root
}

// setStatus shows a passing message in the status line.
func (sh *shell) setStatus(msg string) { sh.status.SetText(msg) }

// bannerTopic is the condition a banner message belongs to: the message goes when its
// condition goes (see clearBanner).
type bannerTopic int

const (
	topicOther bannerTopic = iota // stays until dismissed or replaced
	topicModel                    // no usable model: goes once one is chosen
	topicRefs                     // a reference image problem: goes after a good run or once the reference is removed
	topicRun                      // a failed generation: goes after a good run
)

// showError puts err in the banner in plain words.
func (sh *shell) showError(err error) { sh.showErrorAbout(topicOther, err) }

// showErrorAbout puts err in the banner as a message about topic.
func (sh *shell) showErrorAbout(topic bannerTopic, err error) {
	if err == nil {
		return
	}
	sh.banner.show(fserr.Friendly(err), true)
	sh.banner.topic = topic
}

// showNotice puts an informational message in the banner.
func (sh *shell) showNotice(msg string) {
	sh.banner.show(msg, false)
	sh.banner.topic = topicOther
}

// clearBanner hides the banner when its message is about one of topics.
func (sh *shell) clearBanner(topics ...bannerTopic) {
	b := sh.banner
	if b.box.Visible() && slices.Contains(topics, b.topic) {
		b.hide()
		b.topic = topicOther
	}
}

// errorText is the banner's message ("" when hidden), for tests.
func (sh *shell) errorText() string {
	if !sh.banner.box.Visible() {
		return ""
	}
	return sh.banner.text.Text
}

// banner is a dismissible message strip under the header.
type banner struct {
	// base is opaque under the tinted bg: the banner lies over the image and gallery.
	base *canvas.Rectangle
	bg   *canvas.Rectangle
	icon *widget.Icon
	text *widget.Label
	box  *fyne.Container
	// topic is the condition the message shown belongs to.
	topic bannerTopic
	// isError is whether the message shown is an error.
	isError bool
	// root is the layout the banner lies in (bannerOverlay): laid out again whenever the
	// banner appears, changes height or goes.
	root *fyne.Container
}

// relayout lays the banner out again after it changed. A wrapped message knows its height
// only once it has its width, so this repeats (a few times at most) until the banner has
// the height it needs.
func (b *banner) relayout() {
	if b.root == nil {
		return
	}
	for range 3 {
		b.root.Refresh()
		if !b.box.Visible() || b.box.Size().Height == min(b.box.MinSize().Height, b.root.Size().Height) {
			return
		}
	}
}

// bannerOverlay lays out its first object over the whole area and the banner (its second)
// across the area's foot, as high as its message needs (at most the area). Its minimum
// size is the first object's: a banner never makes the window larger.
type bannerOverlay struct{}

func (bannerOverlay) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
	if b := objs[1]; b.Visible() {
		b.Resize(fyne.NewSize(size.Width, b.MinSize().Height)) // a wrapped text's height follows its width
		h := min(b.MinSize().Height, size.Height)
		b.Resize(fyne.NewSize(size.Width, h))
		b.Move(fyne.NewPos(0, size.Height-h))
	}
}

func (bannerOverlay) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

// hide takes the banner away and gives its room back.
func (b *banner) hide() {
	b.box.Hide()
	b.relayout()
}

func newBanner(tips *widgets.TipLayer) *banner {
	b := &banner{base: canvas.NewRectangle(theme.Color(theme.ColorNameBackground)), bg: canvas.NewRectangle(color.Transparent), icon: widget.NewIcon(theme.ErrorIcon()), text: widget.NewLabel("")}
	b.bg.CornerRadius = theme.InputRadiusSize()
	b.base.CornerRadius = b.bg.CornerRadius
	b.base.StrokeColor = theme.Color(theme.ColorNameSeparator)
	b.base.StrokeWidth = 1
	b.text.Wrapping = fyne.TextWrapWord
	b.text.Selectable = true
	closeBtn := widgets.NewTipButton(tips, theme.CancelIcon(), "Close this message", func() { b.hide() })
	row := container.NewBorder(nil, nil, b.icon, closeBtn, b.text)
	b.box = container.NewPadded(container.NewStack(b.base, b.bg, container.NewPadded(row)))
	b.box.Hide()
	return b
}

func (b *banner) show(msg string, isError bool) {
	c := theme.Color(theme.ColorNamePrimary)
	b.icon.SetResource(theme.InfoIcon())
	if isError {
		c = theme.Color(theme.ColorNameError)
		b.icon.SetResource(theme.ErrorIcon())
	}
	r, g, bl, _ := c.RGBA()
	b.bg.FillColor = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(bl >> 8), A: 0x38}
	b.bg.Refresh()
	b.base.FillColor = theme.Color(theme.ColorNameBackground)
	b.base.Refresh()
	b.text.SetText(sentence(msg))
	b.isError = isError
	b.box.Show()
	b.relayout()
}

// sentence starts msg with a capital letter (Go errors start in lower case), unless its
// first word is a name that must keep its case: one holding anything but letters
// ("style_a.safetensors", "model_index.json").
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	if n == 0 || !unicode.IsLower(r) {
		return msg
	}
	word, _, _ := strings.Cut(msg, " ")
	if strings.ContainsFunc(strings.TrimRight(word, ":,;"), func(r rune) bool { return !unicode.IsLetter(r) }) {
		return msg
	}
	return string(unicode.ToUpper(r)) + msg[n:]
}

// sectionTitle is a small bold heading for a group of controls.
func sectionTitle(s string) *widget.Label {
	return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// hint is a caption-sized secondary text.
func hint(s string) *widget.RichText {
	return hintAligned(s, fyne.TextAlignLeading)
}

func hintAligned(s string, align fyne.TextAlign) *widget.RichText {
	rt := widget.NewRichText(&widget.TextSegment{Text: s, Style: widget.RichTextStyle{
		Alignment: align, ColorName: theme.ColorNamePlaceHolder, SizeName: theme.SizeNameCaptionText,
	}})
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// fieldError is a caption-sized error text, hidden while empty.
func fieldError() *widget.Label {
	l := widget.NewLabel("")
	l.SizeName = theme.SizeNameCaptionText
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return l
}

// setFieldError shows msg under a field, or hides the label for "".
func setFieldError(l *widget.Label, msg string) {
	l.SetText(msg)
	if msg == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

// spacer returns a fixed vertical gap.
func spacer(h float32) fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(0, h))
	return r
}

// cappedWidth lays out one object at most maxWidth wide, centred, at the full height. Its
// minimum size is the object's, narrowed to maxWidth, so a wide guide never widens the window.
type cappedWidth struct{ maxWidth float32 }

// newCappedWidth puts obj in a cappedWidth layout.
func newCappedWidth(maxWidth float32, obj fyne.CanvasObject) *fyne.Container {
	return container.New(cappedWidth{maxWidth}, obj)
}

func (l cappedWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := min(size.Width, l.maxWidth)
	for _, o := range objs {
		o.Resize(fyne.NewSize(w, size.Height))
		o.Move(fyne.NewPos((size.Width-w)/2, 0))
	}
}

func (l cappedWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		if o.Visible() {
			s = s.Max(o.MinSize())
		}
	}
	s.Width = min(s.Width, l.maxWidth)
	return s
}
