package galleryui

import (
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

// Viewer is the central area: the image being made or looked at, its details and actions,
// or a guide when there is nothing to show.
type Viewer struct {
	sh *shell.Shell
	ViewerDeps

	// Shown is the gallery entry in the viewer, when ShownOK.
	Shown   gallery.Entry
	ShownOK bool
	// followRun is true while the viewer shows the running generation's preview.
	followRun bool

	// Image shows the run's preview or the selected image, zoomable.
	Image        *widgets.ZoomImage
	ImageArea    *fyne.Container
	Progress     *fyne.Container
	Bar          *widget.ProgressBar
	ProgressText *widget.Label
	Setup        fyne.CanvasObject
	// SetupDownload is the download section of the setup guide.
	SetupDownload *modelui.DownloadPanel
	Empty         fyne.CanvasObject
	Info          *fyne.Container
	Prompt        *widget.Label
	Details       *widget.Label
	lineage       *fyne.Container
	DeleteBtn     *widgets.TipButton
	// ReuseBtn and SeedBtn restore the shown image's settings; disabled for an image
	// without Kleinbild metadata, which has none.
	ReuseBtn, SeedBtn *widgets.TipButton
	copyImageBtn      *widgets.TipButton
	// Actions is the toolbar of the shown image, beside the zoom buttons (viewactions.go):
	// actionBtns in order, then MoreBtn, whose menu (actionMenu once opened) lists them all.
	Actions    *fyne.Container
	actionBtns []*widgets.TipButton
	MoreBtn    *widgets.TipButton
	actionMenu *widget.PopUpMenu
	busy       *widget.Activity
	busyBox    *fyne.Container

	// Zoom is the zoom bar under the image: its hint, zoom level and buttons.
	Zoom *zoomBar
	// full is the open full-size window, or nil.
	full *fullView
	// copyPNG puts PNG data on the system clipboard (tests replace it).
	copyPNG func(png []byte) error
}

// StarChanged takes a changed star of the gallery image e: the shown copy follows.
func (v *Viewer) StarChanged(e gallery.Entry) {
	if v.ShownOK && v.Shown.File == e.File {
		v.Shown.Favourite = e.Favourite
	}
}

// FollowsRun reports whether the viewer shows the running generation's previews.
func (v *Viewer) FollowsRun() bool { return v.followRun }

// SetFollowRun makes the viewer follow the running generation, or stop following it.
func (v *Viewer) SetFollowRun(follow bool) { v.followRun = follow }

// ShownEntry is the gallery image shown, if any.
func (v *Viewer) ShownEntry() (gallery.Entry, bool) { return v.Shown, v.ShownOK }

// BatchMark is the file the run's grid outlines: the gallery image shown, or "" while
// none is or the viewer follows a run.
func (v *Viewer) BatchMark() string {
	if v.ShownOK && !v.followRun {
		return v.Shown.File
	}
	return ""
}

// ShowProgress shows the run's progress: frac of the whole and a line of text.
func (v *Viewer) ShowProgress(frac float64, text string) {
	v.Bar.SetValue(frac)
	v.ProgressText.SetText(text)
}

// ShowRunPhase shows or hides the progress display as a run starts and ends (it stays
// while cancelling).
func (v *Viewer) ShowRunPhase(p jobs.Phase) {
	switch p {
	case jobs.Idle:
		v.Progress.Hide()
	case jobs.Running:
		v.Progress.Show()
	}
}

// SetImage shows img (nil for none) in the viewer and the full-size window.
func (v *Viewer) SetImage(img image.Image) {
	v.Image.SetImage(img)
	if v.full != nil {
		v.full.zoom.img.SetImage(img)
	}
}

// fitImage shows the whole image again, in the viewer and the full-size window.
func (v *Viewer) fitImage() {
	v.Image.Fit()
	if v.full != nil {
		v.full.zoom.img.Fit()
	}
}

func (v *Viewer) Build() fyne.CanvasObject {
	v.copyPNG = (&imageclip.Clipboard{}).WritePNG
	v.Image = widgets.NewZoomImage()

	v.Bar = widget.NewProgressBar()
	v.Bar.TextFormatter = func() string { return "" }
	v.ProgressText = widget.NewLabel("")
	v.ProgressText.Truncation = fyne.TextTruncateEllipsis
	cardBg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	cardBg.CornerRadius = theme.InputRadiusSize() * 2
	cardBg.StrokeColor = theme.Color(theme.ColorNameSeparator)
	cardBg.StrokeWidth = 1
	card := container.NewStack(cardBg, container.NewPadded(container.NewVBox(v.ProgressText, v.Bar)))
	v.Progress = container.NewVBox(layout.NewSpacer(), container.NewPadded(card))
	v.Progress.Hide()

	backdrop := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	backdrop.CornerRadius = theme.InputRadiusSize() * 2
	v.busy = widget.NewActivity()
	v.busyBox = container.NewCenter(container.NewGridWrap(fyne.NewSquareSize(48), v.busy))
	v.busyBox.Hide()
	v.Zoom = newZoomBar(v.sh.Tips, v.Image, theme.ViewFullScreenIcon(), "Full-size view (F)", v.openFullView)
	v.Zoom.preview = v.showsPreview
	v.Actions = v.buildActions() // viewactions.go
	// The toolbar shares the zoom bar's row; its hint shows while the toolbar does not.
	// The row is at the top of the viewer, so that it stays in one place from image to
	// image: under the image, it moved with the height of the prompt and details below
	// (y = 465 to 598 at 1366×768, issue 36 item 18).
	v.Zoom.box = container.NewBorder(nil, nil, nil, v.Zoom.controls, container.NewStack(v.Zoom.hint, v.Actions))
	v.ImageArea = container.NewBorder(v.Zoom.box, nil, nil, nil,
		container.NewStack(backdrop, container.NewPadded(v.Image), v.busyBox, v.Progress))

	v.Setup = v.buildSetupGuide()
	v.Empty = v.buildEmptyGuide()

	v.Prompt = widget.NewLabel("")
	v.Prompt.Wrapping = fyne.TextWrapWord
	v.Prompt.Selectable = true
	v.Details = widget.NewLabel("")
	v.Details.Wrapping = fyne.TextWrapWord
	v.Details.SizeName = theme.SizeNameCaptionText
	v.lineage = container.NewHBox()

	v.Info = container.NewVBox(v.Prompt, v.Details, v.lineage)
	v.Info.Hide()
	v.Actions.Hide()

	// The prompt and details scroll on their own when the window is short: a long prompt
	// never makes the window taller than the screen. The actions stay in view.
	infoScroll := container.NewVScroll(v.Info)
	return container.New(infoBelow{}, container.NewPadded(container.NewStack(v.ImageArea, v.Setup, v.Empty)), infoScroll)
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
func (v *Viewer) buildSetupGuide() fyne.CanvasObject {
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
	choose := widget.NewButtonWithIcon("Choose model…", theme.FolderOpenIcon(), v.ShowModelDialog)
	dl, _ := v.DownloadPanel() // lives as long as the window
	v.SetupDownload = dl
	body := container.NewVBox(container.NewCenter(logo), title, text, container.NewCenter(choose),
		widget.NewSeparator(), dl.Box)
	return shell.NewCappedWidth(560, container.NewVScroll(body))
}

// buildEmptyGuide is shown when a model is ready but no image is selected.
func (v *Viewer) buildEmptyGuide() fyne.CanvasObject {
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
func (v *Viewer) Update() {
	live := v.followRun && (v.Running() || v.Image.Image != nil)
	modelOK := v.ModelUsable()
	switch {
	case live || v.ShownOK:
		v.ImageArea.Show()
		v.Setup.Hide()
		v.Empty.Hide()
	case !modelOK:
		v.ImageArea.Hide()
		v.Setup.Show()
		v.Empty.Hide()
	default:
		v.ImageArea.Hide()
		v.Setup.Hide()
		v.Empty.Show()
	}
	if v.Running() {
		v.Progress.Show()
	} else {
		v.Progress.Hide()
	}
	if v.Running() && v.followRun && v.Image.Image == nil {
		v.busyBox.Show()
		v.busy.Start()
	} else {
		v.busy.Stop()
		v.busyBox.Hide()
	}
	if v.ShownOK && !live {
		v.Info.Show()
		v.Actions.Show()
		v.Zoom.hint.Hide()
	} else {
		v.Info.Hide()
		v.Actions.Hide()
		v.Zoom.hint.Show()
	}
	v.MarkBatch(v.BatchMark()) // the run's grid outlines the image shown
	v.Zoom.refresh()           // "Preview" comes and goes with the run
	if v.full != nil {
		v.full.zoom.refresh()
	}
}

// showsPreview reports whether the image shown is a running generation's preview.
func (v *Viewer) showsPreview() bool { return v.followRun && v.Running() }

// ShowEntry puts a gallery image in the viewer; full is its decoded image when at hand.
func (v *Viewer) ShowEntry(e gallery.Entry, full image.Image) {
	if !v.ShownOK || v.Shown.File != e.File || v.followRun {
		v.fitImage() // a new image starts fitted
	}
	v.Shown, v.ShownOK = e, true
	v.followRun = false
	v.sh.RememberViewed(e.File)
	if v.full != nil {
		v.full.win.SetTitle(e.File + " – Kleinbild")
	}
	path := v.sh.Gallery.Path(e)
	if e.HasMeta {
		v.Prompt.SetText(widgets.ClipRunes(e.Meta.Prompt, widgets.WrapRunes)) // wrapped: see widgets.WrapRunes
		v.Details.SetText(DescribeEntry(e))
		v.ReuseBtn.Enable()
		v.SeedBtn.Enable()
	} else {
		v.Prompt.SetText(e.File)
		v.Details.SetText(noSettingsText)
		v.ReuseBtn.Disable()
		v.SeedBtn.Disable()
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
				if !v.ShownOK || v.Shown.File != e.File || v.followRun {
					return
				}
				switch {
				case err != nil && v.Gal.Deleting(e.File):
					// Deleted while it was read: the viewer moves on once the deletion ends.
				case err != nil:
					v.sh.ShowError(err)
				default:
					v.SetImage(img)
				}
			})
		}()
	}
	v.Update()
}

// noSettingsText explains why an image without Kleinbild metadata offers no reuse.
const noSettingsText = "No Kleinbild settings in this image (it was not made by Kleinbild), so there are none to reuse."

// DescribeEntry is the details under the prompt: the settings, then the negative prompt,
// references and adapters when there are any.
func DescribeEntry(e gallery.Entry) string {
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
func (v *Viewer) showLineage(e gallery.Entry) {
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
			th := shell.NewTapThumb(fyne.NewSquareSize(44), func() { v.Gal.SelectAndScroll(p.File) })
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
func (v *Viewer) ClearShown() {
	v.ShownOK = false
	v.Shown = gallery.Entry{}
	v.SetImage(nil)
	v.Update()
}

// saveShownAs saves a copy of the shown image where the user chooses, with Kleinbild's
// chooser (a typed path works); it opens in the folder saved in last.
func (v *Viewer) saveShownAs() {
	if !v.ShownOK {
		return
	}
	sh := v.sh
	last := sh.Settings.SaveDir
	v.SaveAs("Save a copy", sh.Gallery.Path(v.Shown), v.Shown.File, func() string {
		home, cfg := userdirs.Dirs()
		return userdirs.Start(last, home, cfg, runtime.GOOS)
	}, func(path string) {
		sh.Settings.SaveDir = filepath.Dir(path)
		sh.Remember(sh.Settings)
		sh.SetStatus("Saved a copy as " + path)
	})
}

func (v *Viewer) copyShownPath() {
	if !v.ShownOK {
		return
	}
	p := v.sh.Gallery.Path(v.Shown)
	v.sh.App.Clipboard().SetContent(p)
	v.sh.SetStatus("Copied " + p)
}

// copyShownImage puts the shown image's pixels on the system clipboard, as PNG.
func (v *Viewer) copyShownImage() {
	if !v.ShownOK {
		return
	}
	v.copyImageBtn.Disable()
	v.CopyImage(v.Shown, v.copyImageBtn.Enable)
}

// CopyImage puts the pixels of gallery image e on the clipboard (read and encoded off the
// UI goroutine) and says how it went; done, when set, runs afterwards on the UI goroutine.
func (v *Viewer) CopyImage(e gallery.Entry, done func()) {
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

// TypedKey handles a key typed in the main window that no widget took (see typedKey).
func (v *Viewer) TypedKey(ev *fyne.KeyEvent) { v.typedKey(v.sh.Win.Canvas(), v.Image, ev) }

// typedKey handles the viewer's keys typed on canvas c, whose zoomable image is z:
// ← → (and Home, End) show the previous or next gallery image, Delete deletes the shown
// one, + − zoom, 0 fits, 1 shows actual size and F opens the full-size view. Nothing
// happens while a widget (a text field) has the keyboard focus.
func (v *Viewer) typedKey(c fyne.Canvas, z *widgets.ZoomImage, ev *fyne.KeyEvent) {
	if c.Focused() != nil {
		return
	}
	switch ev.Name {
	case fyne.KeyLeft:
		v.step(-1)
	case fyne.KeyRight:
		v.step(1)
	case fyne.KeyHome:
		v.browse(-len(v.Gal.VisibleEntries()))
	case fyne.KeyEnd:
		v.browse(len(v.Gal.VisibleEntries()))
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
func (v *Viewer) step(delta int) {
	if v.ShownOK && !v.followRun && v.BatchStep != nil {
		if next, ok := v.BatchStep(v.Shown.File, delta); ok {
			if next != v.Shown.File {
				v.Gal.SelectEntry(next, nil)
			}
			return
		}
	}
	v.browse(delta)
}

// browse shows the gallery image delta places from the shown one (or the first one
// when none is shown).
func (v *Viewer) browse(delta int) {
	if v.sh.Gallery == nil {
		return
	}
	if !v.ShownOK || v.followRun {
		if vis := v.Gal.VisibleEntries(); len(vis) > 0 && !v.Running() {
			v.Gal.SelectEntry(vis[0].File, nil)
		}
		return
	}
	if e, ok := v.neighbour(v.Shown, delta); ok {
		v.Gal.SelectEntry(e.File, nil)
	}
}

// neighbour is the gallery image delta places from e in the gallery's order, stopping
// at the first and last; ok is false when that is e itself or e is not in the gallery.
func (v *Viewer) neighbour(e gallery.Entry, delta int) (gallery.Entry, bool) {
	vis := v.Gal.VisibleEntries() // the grid's order: search and favourites filters apply
	i := v.Gal.IndexOf(e.File)
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
// shows its neighbour (see View.DeleteEntry).
func (v *Viewer) deleteShownNow() {
	if !v.ShownOK || v.followRun {
		return
	}
	v.Gal.DeleteEntry(v.Shown)
}

func (v *Viewer) revealShown() {
	if !v.ShownOK {
		return
	}
	p := v.sh.Gallery.Path(v.Shown)
	go func() {
		if err := reveal.File(p); err != nil {
			v.sh.Post(func() { v.sh.ShowError(err) })
		}
	}()
}
