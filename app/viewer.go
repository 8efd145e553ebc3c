package app

import (
	"kleinbild/app/chooser"
	"kleinbild/app/imagefile"
	"kleinbild/app/jobs"
	"kleinbild/app/modelui"

	"fmt"
	"image"
	"path/filepath"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/imageclip"
	"kleinbild/app/reveal"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/userdirs"
	"kleinbild/app/widgets"
	"kleinbild/resources"
)

// viewer is the central area: the image being made or looked at, its details and actions,
// or a guide when there is nothing to show.
type viewer struct {
	sh *shell.Shell
	viewerDeps

	// shown is the gallery entry in the viewer, when shownOK.
	shown   gallery.Entry
	shownOK bool
	// followRun is true while the viewer shows the running generation's preview.
	followRun bool

	// image shows the run's preview or the selected image, zoomable.
	image        *widgets.ZoomImage
	imageArea    *fyne.Container
	progress     *fyne.Container
	bar          *widget.ProgressBar
	progressText *widget.Label
	setup        fyne.CanvasObject
	// setupDownload is the download section of the setup guide.
	setupDownload *modelui.DownloadPanel
	empty         fyne.CanvasObject
	info          *fyne.Container
	prompt        *widget.Label
	details       *widget.Label
	lineage       *fyne.Container
	deleteBtn     *widgets.TipButton
	// reuseBtn and seedBtn restore the shown image's settings; disabled for an image
	// without Kleinbild metadata, which has none.
	reuseBtn, seedBtn *widgets.TipButton
	copyImageBtn      *widgets.TipButton
	// actions is the toolbar of the shown image, beside the zoom buttons (viewactions.go):
	// actionBtns in order, then moreBtn, whose menu (actionMenu once opened) lists them all.
	actions    *fyne.Container
	actionBtns []*widgets.TipButton
	moreBtn    *widgets.TipButton
	actionMenu *widget.PopUpMenu
	busy       *widget.Activity
	busyBox    *fyne.Container

	// zoom is the zoom bar under the image: its hint, zoom level and buttons.
	zoom *zoomBar
	// full is the open full-size window, or nil.
	full *fullView
	// copyPNG puts PNG data on the system clipboard (tests replace it).
	copyPNG func(png []byte) error
	// saveChooser is the last "Save as…" chooser opened (for tests).
	saveChooser *chooser.Chooser
}

// StarChanged takes a changed star of the gallery image e: the shown copy follows.
func (v *viewer) StarChanged(e gallery.Entry) {
	if v.shownOK && v.shown.File == e.File {
		v.shown.Favourite = e.Favourite
	}
}

// FollowsRun reports whether the viewer shows the running generation's previews.
func (v *viewer) FollowsRun() bool { return v.followRun }

// SetFollowRun makes the viewer follow the running generation, or stop following it.
func (v *viewer) SetFollowRun(follow bool) { v.followRun = follow }

// ShownEntry is the gallery image shown, if any.
func (v *viewer) ShownEntry() (gallery.Entry, bool) { return v.shown, v.shownOK }

// BatchMark is the file the run's grid outlines: the gallery image shown, or "" while
// none is or the viewer follows a run.
func (v *viewer) BatchMark() string {
	if v.shownOK && !v.followRun {
		return v.shown.File
	}
	return ""
}

// ShowProgress shows the run's progress: frac of the whole and a line of text.
func (v *viewer) ShowProgress(frac float64, text string) {
	v.bar.SetValue(frac)
	v.progressText.SetText(text)
}

// showRunPhase shows or hides the progress display as a run starts and ends (it stays
// while cancelling).
func (v *viewer) showRunPhase(p jobs.Phase) {
	switch p {
	case jobs.Idle:
		v.progress.Hide()
	case jobs.Running:
		v.progress.Show()
	}
}

// SetImage shows img (nil for none) in the viewer and the full-size window.
func (v *viewer) SetImage(img image.Image) {
	v.image.SetImage(img)
	if v.full != nil {
		v.full.zoom.image.SetImage(img)
	}
}

// fitImage shows the whole image again, in the viewer and the full-size window.
func (v *viewer) fitImage() {
	v.image.Fit()
	if v.full != nil {
		v.full.zoom.image.Fit()
	}
}

func (v *viewer) build() fyne.CanvasObject {
	v.copyPNG = (&imageclip.Clipboard{}).WritePNG
	v.image = widgets.NewZoomImage()

	v.bar = widget.NewProgressBar()
	v.bar.TextFormatter = func() string { return "" }
	v.progressText = widget.NewLabel("")
	v.progressText.Truncation = fyne.TextTruncateEllipsis
	cardBg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	cardBg.CornerRadius = theme.InputRadiusSize() * 2
	cardBg.StrokeColor = theme.Color(theme.ColorNameSeparator)
	cardBg.StrokeWidth = 1
	card := container.NewStack(cardBg, container.NewPadded(container.NewVBox(v.progressText, v.bar)))
	v.progress = container.NewVBox(layout.NewSpacer(), container.NewPadded(card))
	v.progress.Hide()

	backdrop := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	backdrop.CornerRadius = theme.InputRadiusSize() * 2
	v.busy = widget.NewActivity()
	v.busyBox = container.NewCenter(container.NewGridWrap(fyne.NewSquareSize(48), v.busy))
	v.busyBox.Hide()
	v.zoom = newZoomBar(v.sh.Tips, v.image, theme.ViewFullScreenIcon(), "Full-size view (F)", v.openFullView)
	v.zoom.preview = v.showsPreview
	v.actions = v.buildActions() // viewactions.go
	// The toolbar shares the zoom bar's row; its hint shows while the toolbar does not.
	// The row is at the top of the viewer, so that it stays in one place from image to
	// image: under the image, it moved with the height of the prompt and details below
	// (y = 465 to 598 at 1366×768, issue 36 item 18).
	v.zoom.box = container.NewBorder(nil, nil, nil, v.zoom.controls, container.NewStack(v.zoom.hint, v.actions))
	v.imageArea = container.NewBorder(v.zoom.box, nil, nil, nil,
		container.NewStack(backdrop, container.NewPadded(v.image), v.busyBox, v.progress))

	v.setup = v.buildSetupGuide()
	v.empty = v.buildEmptyGuide()

	v.prompt = widget.NewLabel("")
	v.prompt.Wrapping = fyne.TextWrapWord
	v.prompt.Selectable = true
	v.details = widget.NewLabel("")
	v.details.Wrapping = fyne.TextWrapWord
	v.details.SizeName = theme.SizeNameCaptionText
	v.lineage = container.NewHBox()

	v.info = container.NewVBox(v.prompt, v.details, v.lineage)
	v.info.Hide()
	v.actions.Hide()

	// The prompt and details scroll on their own when the window is short: a long prompt
	// never makes the window taller than the screen. The actions stay in view.
	infoScroll := container.NewVScroll(v.info)
	return container.New(infoBelow{}, container.NewPadded(container.NewStack(v.imageArea, v.setup, v.empty)), infoScroll)
}

// infoBelow lays out the image (objects[0]) above the shown image's prompt and details
// (objects[1], a vertical scroll): the details get the height they need, up to 45 % of
// the area; the minimum asks for at most infoBelowMin of them, the rest scrolls.
type infoBelow struct{}

// infoBelowMin is the most height the details ask of the window.
const infoBelowMin = 48

// need is the height the details want and whether they are shown.
func (infoBelow) need(info fyne.CanvasObject) (float32, bool) {
	s, ok := info.(*container.Scroll)
	if !ok || s.Content == nil || !s.Content.Visible() {
		return 0, false
	}
	return s.Content.MinSize().Height, true
}

func (l infoBelow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	main, info := objs[0], objs[1]
	need, shown := l.need(info)
	if !shown {
		info.Hide()
		main.Move(fyne.NewPos(0, 0))
		main.Resize(size)
		return
	}
	info.Show()
	h := min(need, max(size.Height*0.45, min(need, infoBelowMin)))
	mainH := max(size.Height-h, 0)
	main.Move(fyne.NewPos(0, 0))
	main.Resize(fyne.NewSize(size.Width, mainH))
	info.Move(fyne.NewPos(0, mainH))
	info.Resize(fyne.NewSize(size.Width, h))
}

func (l infoBelow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := objs[0].MinSize()
	if need, shown := l.need(objs[1]); shown {
		m.Height += min(need, infoBelowMin)
		m.Width = max(m.Width, objs[1].MinSize().Width)
	}
	return m
}

// buildSetupGuide is shown while no usable model is configured.
func (v *viewer) buildSetupGuide() fyne.CanvasObject {
	logo := canvas.NewImageFromResource(resources.Icon)
	logo.FillMode = canvas.ImageFillContain
	logo.SetMinSize(fyne.NewSquareSize(96))
	title := widget.NewLabelWithStyle("Choose a model to start", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameHeadingText
	text := widgets.Markdown(
		"Kleinbild makes images on this computer with a **FLUX.2-klein** model: a Hugging Face " +
			"model folder, a ComfyUI models folder, or GGUF and safetensors files (as ComfyUI and " +
			"stable-diffusion.cpp use them). To get one, press **Download** below: klein-4B as " +
			"published takes about 16 GB of disk and memory, its 8-bit and 4-bit GGUF versions 9 and 5 GB. " +
			"If you already have one, press **Choose model…** or drop its folder or file on the window.")
	text.Wrapping = fyne.TextWrapWord
	choose := widget.NewButtonWithIcon("Choose model…", theme.FolderOpenIcon(), v.showModelDialog)
	dl, _ := v.downloadPanel() // lives as long as the window
	v.setupDownload = dl
	body := container.NewVBox(container.NewCenter(logo), title, text, container.NewCenter(choose),
		widget.NewSeparator(), dl.Box)
	return shell.NewCappedWidth(560, container.NewVScroll(body))
}

// buildEmptyGuide is shown when a model is ready but no image is selected.
func (v *viewer) buildEmptyGuide() fyne.CanvasObject {
	icon := widget.NewIcon(theme.NewThemedResource(resources.Sparkles))
	iconBox := container.NewGridWrap(fyne.NewSquareSize(64), icon)
	title := widget.NewLabelWithStyle("Describe an image and press Generate", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	text := shell.HintAligned("Ctrl+Enter generates from anywhere in the window. Drop images here to use them as references.",
		fyne.TextAlignCenter)
	return container.NewCenter(container.NewGridWrap(fyne.NewSize(420, 160),
		container.NewVBox(container.NewCenter(iconBox), title, text)))
}

// Update shows the right part of the viewer for the current state.
func (v *viewer) Update() {
	live := v.followRun && (v.running() || v.image.Image != nil)
	modelOK := v.modelUsable()
	switch {
	case live || v.shownOK:
		v.imageArea.Show()
		v.setup.Hide()
		v.empty.Hide()
	case !modelOK:
		v.imageArea.Hide()
		v.setup.Show()
		v.empty.Hide()
	default:
		v.imageArea.Hide()
		v.setup.Hide()
		v.empty.Show()
	}
	if v.running() {
		v.progress.Show()
	} else {
		v.progress.Hide()
	}
	if v.running() && v.followRun && v.image.Image == nil {
		v.busyBox.Show()
		v.busy.Start()
	} else {
		v.busy.Stop()
		v.busyBox.Hide()
	}
	if v.shownOK && !live {
		v.info.Show()
		v.actions.Show()
		v.zoom.hint.Hide()
	} else {
		v.info.Hide()
		v.actions.Hide()
		v.zoom.hint.Show()
	}
	v.markBatch(v.BatchMark()) // the run's grid outlines the image shown
	v.zoom.refresh()           // "Preview" comes and goes with the run
	if v.full != nil {
		v.full.zoom.refresh()
	}
}

// showsPreview reports whether the image shown is a running generation's preview.
func (v *viewer) showsPreview() bool { return v.followRun && v.running() }

// ShowEntry puts a gallery image in the viewer; full is its decoded image when at hand.
func (v *viewer) ShowEntry(e gallery.Entry, full image.Image) {
	if !v.shownOK || v.shown.File != e.File || v.followRun {
		v.fitImage() // a new image starts fitted
	}
	v.shown, v.shownOK = e, true
	v.followRun = false
	v.sh.RememberViewed(e.File)
	if v.full != nil {
		v.full.win.SetTitle(e.File + " – Kleinbild")
	}
	path := v.sh.Gallery.Path(e)
	if e.HasMeta {
		v.prompt.SetText(widgets.ClipRunes(e.Meta.Prompt, widgets.WrapRunes)) // wrapped: see widgets.WrapRunes
		v.details.SetText(describeEntry(e))
		v.reuseBtn.Enable()
		v.seedBtn.Enable()
	} else {
		v.prompt.SetText(e.File)
		v.details.SetText(noSettingsText)
		v.reuseBtn.Disable()
		v.seedBtn.Disable()
	}
	v.showLineage(e)
	switch {
	case full != nil:
		v.SetImage(full)
	default:
		// The thumbnail first (when at hand), the full image once decoded.
		th, _ := v.sh.Thumbs.Get(e.SHA256, path, func(image.Image, error) {})
		v.SetImage(th)
		go func() {
			img, err := thumbcache.DecodeFile(path)
			v.sh.Post(func() {
				if !v.shownOK || v.shown.File != e.File || v.followRun {
					return
				}
				if err != nil {
					v.sh.ShowError(err)
					return
				}
				v.SetImage(img)
			})
		}()
	}
	v.Update()
}

// noSettingsText explains why an image without Kleinbild metadata offers no reuse.
const noSettingsText = "No Kleinbild settings in this image (it was not made by Kleinbild), so there are none to reuse."

// describeEntry is the details under the prompt: the settings, then the negative prompt,
// references and adapters when there are any.
func describeEntry(e gallery.Entry) string {
	s := imagefile.Describe(e.Meta)
	if !e.Meta.Created.IsZero() {
		s += " · " + e.Meta.Created.Local().Format("2 Jan 2006 15:04")
	}
	if n := strings.TrimSpace(e.Meta.NegativePrompt); n != "" { // issue 36 defect 22
		s += "\nNegative prompt: " + widgets.ClipRunes(n, widgets.WrapRunes)
	}
	var refs []string
	for _, r := range e.Meta.References {
		refs = append(refs, filepath.Base(r))
	}
	if len(refs) > 0 {
		s += "\nReferences: " + strings.Join(refs, ", ")
	}
	return s + imagefile.AdaptersDetail(e.Meta.Adapters)
}

// showLineage lists the gallery images e was made from and those made from e.
func (v *viewer) showLineage(e gallery.Entry) {
	var objs []fyne.CanvasObject
	add := func(label string, list []gallery.Entry) {
		if len(list) == 0 {
			return
		}
		l := widget.NewLabel(label)
		l.SizeName = theme.SizeNameCaptionText
		objs = append(objs, l)
		for i, p := range list {
			if i == 6 {
				objs = append(objs, widget.NewLabel(fmt.Sprintf("+%d", len(list)-i)))
				break
			}
			th := shell.NewTapThumb(fyne.NewSquareSize(44), func() { v.gal.SelectAndScroll(p.File) })
			v.sh.LoadThumb(&th.ThumbImage, p.SHA256, v.sh.Gallery.Path(p))
			objs = append(objs, th)
		}
	}
	add("Made from", v.sh.Gallery.Parents(e))
	add("Used in", v.sh.Gallery.Children(e))
	v.lineage.Objects = objs
	v.lineage.Refresh()
	if len(objs) == 0 {
		v.lineage.Hide()
	} else {
		v.lineage.Show()
	}
}

// ClearShown empties the viewer.
func (v *viewer) ClearShown() {
	v.shownOK = false
	v.shown = gallery.Entry{}
	v.SetImage(nil)
	v.Update()
}

// saveShownAs saves a copy of the shown image where the user chooses, with Kleinbild's
// chooser (a typed path works); it opens in the folder saved in last.
func (v *viewer) saveShownAs() {
	if !v.shownOK {
		return
	}
	sh := v.sh
	last := sh.Settings.SaveDir
	v.saveChooser = chooser.OpenSave(sh, "Save a copy", sh.Gallery.Path(v.shown), v.shown.File, func() string {
		home, cfg := userdirs.Dirs()
		return userdirs.Start(last, home, cfg, runtime.GOOS)
	}, func(path string) {
		sh.Settings.SaveDir = filepath.Dir(path)
		sh.Remember(sh.Settings)
		sh.SetStatus("Saved a copy as " + path)
	})
}

func (v *viewer) copyShownPath() {
	if !v.shownOK {
		return
	}
	p := v.sh.Gallery.Path(v.shown)
	v.sh.App.Clipboard().SetContent(p)
	v.sh.SetStatus("Copied " + p)
}

// copyShownImage puts the shown image's pixels on the system clipboard, as PNG.
func (v *viewer) copyShownImage() {
	if !v.shownOK {
		return
	}
	v.copyImageBtn.Disable()
	v.CopyImage(v.shown, v.copyImageBtn.Enable)
}

// CopyImage puts the pixels of gallery image e on the clipboard (read and encoded off the
// UI goroutine) and says how it went; done, when set, runs afterwards on the UI goroutine.
func (v *viewer) CopyImage(e gallery.Entry, done func()) {
	path, write := v.sh.Gallery.Path(e), v.copyPNG
	v.sh.BG.Add(1)
	go func() {
		defer v.sh.BG.Done()
		data, err := imageclip.FileAsPNG(path)
		if err == nil {
			err = write(data)
		}
		v.sh.Post(func() {
			if done != nil {
				done()
			}
			if err != nil {
				v.sh.ShowError(fmt.Errorf("the image could not be copied to the clipboard: %w", err))
				return
			}
			v.sh.SetStatus("Copied the image " + e.File + " to the clipboard.")
		})
	}()
}

// typedKey handles the viewer's keys typed on canvas c, whose zoomable image is z:
// ← → (and Home, End) show the previous or next gallery image, Delete deletes the shown
// one, + − zoom, 0 fits, 1 shows actual size and F opens the full-size view. Nothing
// happens while a widget (a text field) has the keyboard focus.
func (v *viewer) typedKey(c fyne.Canvas, z *widgets.ZoomImage, ev *fyne.KeyEvent) {
	if c.Focused() != nil {
		return
	}
	switch ev.Name {
	case fyne.KeyLeft:
		v.step(-1)
	case fyne.KeyRight:
		v.step(1)
	case fyne.KeyHome:
		v.browse(-len(v.gal.VisibleEntries()))
	case fyne.KeyEnd:
		v.browse(len(v.gal.VisibleEntries()))
	case fyne.KeyDelete:
		v.deleteShownNow()
	case fyne.KeyPlus, fyne.KeyEqual, fyne.KeyAsterisk:
		z.ZoomIn()
	case fyne.KeyMinus:
		z.ZoomOut()
	case fyne.Key0:
		z.Fit()
	case fyne.Key1:
		z.Actual()
	case fyne.KeyF:
		if c == v.sh.Win.Canvas() {
			v.openFullView()
		}
	}
}

// step shows the image delta places from the shown one: along the run's grid while the
// shown image is one of its tiles, else along the gallery (browse).
func (v *viewer) step(delta int) {
	if v.shownOK && !v.followRun && v.batchStep != nil {
		if next, ok := v.batchStep(v.shown.File, delta); ok {
			if next != v.shown.File {
				v.gal.SelectEntry(next, nil)
			}
			return
		}
	}
	v.browse(delta)
}

// browse shows the gallery image delta places from the shown one (or the first one
// when none is shown).
func (v *viewer) browse(delta int) {
	if v.sh.Gallery == nil {
		return
	}
	if !v.shownOK || v.followRun {
		if vis := v.gal.VisibleEntries(); len(vis) > 0 && !v.running() {
			v.gal.SelectEntry(vis[0].File, nil)
		}
		return
	}
	if e, ok := v.neighbour(v.shown, delta); ok {
		v.gal.SelectEntry(e.File, nil)
	}
}

// neighbour is the gallery image delta places from e in the gallery's order, stopping
// at the first and last; ok is false when that is e itself or e is not in the gallery.
func (v *viewer) neighbour(e gallery.Entry, delta int) (gallery.Entry, bool) {
	vis := v.gal.VisibleEntries() // the grid's order: search and favourites filters apply
	i := v.gal.IndexOf(e.File)
	n := len(vis)
	if i < 0 || n == 0 {
		return gallery.Entry{}, false
	}
	j := min(n-1, max(0, i+delta))
	if j == i {
		return gallery.Entry{}, false
	}
	return vis[j], true
}

// deleteShownNow moves the shown image to the trash (the Delete key); the gallery then
// shows its neighbour (see galleryView.deleteEntry).
func (v *viewer) deleteShownNow() {
	if !v.shownOK || v.followRun {
		return
	}
	v.gal.DeleteEntry(v.shown)
}

func (v *viewer) revealShown() {
	if !v.shownOK {
		return
	}
	p := v.sh.Gallery.Path(v.shown)
	go func() {
		if err := reveal.File(p); err != nil {
			v.sh.Post(func() { v.sh.ShowError(err) })
		}
	}()
}
