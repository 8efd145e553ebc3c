package app

import (
	"bufio"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/resources"
)

// viewer is the central area: the image being made or looked at, its details and actions,
// or a guide when there is nothing to show.
type viewer struct {
	image        *canvas.Image
	imageArea    *fyne.Container
	progress     *fyne.Container
	bar          *widget.ProgressBar
	progressText *widget.Label
	setup        fyne.CanvasObject
	// setupDownload is the download section of the setup guide.
	setupDownload *downloadPanel
	empty         fyne.CanvasObject
	info          *fyne.Container
	prompt        *widget.Label
	details       *widget.Label
	lineage       *fyne.Container
	deleteBtn     *widget.Button
	// reuseBtn and seedBtn restore the shown image's settings; disabled for an image
	// without Kleinbild metadata, which has none.
	reuseBtn, seedBtn *widget.Button
	busy              *widget.Activity
	busyBox           *fyne.Container
}

func (u *UI) buildViewer() fyne.CanvasObject {
	v := &u.view
	v.image = &canvas.Image{FillMode: canvas.ImageFillContain, ScaleMode: canvas.ImageScaleSmooth}
	v.image.SetMinSize(fyne.NewSquareSize(160))
	v.image.Hide()

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
	v.imageArea = container.NewStack(backdrop, container.NewPadded(v.image), v.busyBox, v.progress)

	v.setup = u.buildSetupGuide()
	v.empty = u.buildEmptyGuide()

	v.prompt = widget.NewLabel("")
	v.prompt.Wrapping = fyne.TextWrapWord
	v.prompt.Selectable = true
	v.details = widget.NewLabel("")
	v.details.Wrapping = fyne.TextWrapWord
	v.details.SizeName = theme.SizeNameCaptionText
	v.lineage = container.NewHBox()

	reuse := widget.NewButtonWithIcon("Reuse settings", theme.ContentUndoIcon(), func() {
		if u.shownOK && u.shown.HasMeta {
			u.RestoreSettings(u.shown.Meta)
		}
	})
	seed := widget.NewButtonWithIcon("Reuse seed", theme.NewThemedResource(resources.Dice), func() {
		if u.shownOK && u.shown.HasMeta {
			u.ReuseSeed(u.shown.Meta.Seed)
			u.setStatus(fmt.Sprintf("Seed %d locked for the next generations.", u.shown.Meta.Seed))
		}
	})
	asRef := widget.NewButtonWithIcon("Use as reference", theme.ContentAddIcon(), func() {
		if u.shownOK {
			u.AddReference(u.gallery.Path(u.shown))
		}
	})
	saveAs := iconButton(theme.DocumentSaveIcon(), u.saveShownAs)
	copyPath := iconButton(theme.ContentCopyIcon(), u.copyShownPath)
	folder := iconButton(theme.FolderOpenIcon(), u.revealShown)
	v.deleteBtn = iconButton(theme.DeleteIcon(), u.confirmDeleteShown)
	v.reuseBtn, v.seedBtn = reuse, seed
	actions := container.NewBorder(nil, nil,
		container.NewHBox(reuse, seed, asRef), container.NewHBox(iconButton(theme.ZoomInIcon(), u.RenderLarger), saveAs, copyPath, folder, v.deleteBtn))
	v.info = container.NewVBox(v.prompt, v.details, v.lineage, actions)
	v.info.Hide()

	return container.NewBorder(nil, v.info, nil, nil,
		container.NewPadded(container.NewStack(v.imageArea, v.setup, v.empty)))
}

func iconButton(icon fyne.Resource, tapped func()) *widget.Button {
	b := widget.NewButtonWithIcon("", icon, tapped)
	b.Importance = widget.LowImportance
	return b
}

// buildSetupGuide is shown while no usable model is configured.
func (u *UI) buildSetupGuide() fyne.CanvasObject {
	logo := canvas.NewImageFromResource(resources.Icon)
	logo.FillMode = canvas.ImageFillContain
	logo.SetMinSize(fyne.NewSquareSize(96))
	title := widget.NewLabelWithStyle("Choose a model to start", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameHeadingText
	text := widget.NewRichTextFromMarkdown(
		"Kleinbild makes images on this computer with a **FLUX.2-klein** model folder " +
			"(Hugging Face layout: `model_index.json`, `transformer/`, `text_encoder/`, `vae/`, …). " +
			"To get one, press **Download** below: Kleinbild fetches the model from Hugging Face " +
			"(klein-4B needs about 16 GB of disk and memory) and opens it when it is done. " +
			"If you already have a model folder, press **Choose model folder…** and pick it.")
	text.Wrapping = fyne.TextWrapWord
	choose := widget.NewButtonWithIcon("Choose model folder…", theme.FolderOpenIcon(), u.ShowModelDialog)
	dl, _ := u.newDownloadPanel() // lives as long as the window
	u.view.setupDownload = dl
	body := container.NewVBox(container.NewCenter(logo), title, text, container.NewCenter(choose),
		widget.NewSeparator(), dl.box)
	return container.NewCenter(container.NewGridWrap(fyne.NewSize(560, 640), container.NewVScroll(body)))
}

// buildEmptyGuide is shown when a model is ready but no image is selected.
func (u *UI) buildEmptyGuide() fyne.CanvasObject {
	icon := widget.NewIcon(theme.NewThemedResource(resources.Sparkles))
	iconBox := container.NewGridWrap(fyne.NewSquareSize(64), icon)
	title := widget.NewLabelWithStyle("Describe an image and press Generate", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	text := hintAligned("Ctrl+Enter generates from anywhere in the window. Drop images here to use them as references.",
		fyne.TextAlignCenter)
	return container.NewCenter(container.NewGridWrap(fyne.NewSize(420, 160),
		container.NewVBox(container.NewCenter(iconBox), title, text)))
}

// updateViewer shows the right part of the viewer for the current state.
func (u *UI) updateViewer() {
	v := &u.view
	live := u.followRun && (u.run != nil || v.image.Image != nil)
	modelOK := u.modelDir != "" && u.modelErr == nil
	switch {
	case live || u.shownOK:
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
	if u.run != nil {
		v.progress.Show()
	} else {
		v.progress.Hide()
	}
	if u.run != nil && u.followRun && v.image.Image == nil {
		v.busyBox.Show()
		v.busy.Start()
	} else {
		v.busy.Stop()
		v.busyBox.Hide()
	}
	if u.shownOK && !live {
		v.info.Show()
	} else {
		v.info.Hide()
	}
}

// showEntry puts a gallery image in the viewer; full is its decoded image when at hand.
func (u *UI) showEntry(e galleryEntry, full image.Image) {
	v := &u.view
	u.shown, u.shownOK = e, true
	u.followRun = false
	path := u.gallery.Path(e)
	if e.HasMeta {
		v.prompt.SetText(clipRunes(e.Meta.Prompt, wrapRunes)) // wrapped: see wrapRunes
		v.details.SetText(describeEntry(e))
		v.reuseBtn.Enable()
		v.seedBtn.Enable()
	} else {
		v.prompt.SetText(e.File)
		v.details.SetText(noSettingsText)
		v.reuseBtn.Disable()
		v.seedBtn.Disable()
	}
	u.showLineage(e)
	switch {
	case full != nil:
		setCanvasImage(v.image, full)
	default:
		// The thumbnail first (when at hand), the full image once decoded.
		th, _ := u.thumbs.Get(e.SHA256, path, func(image.Image, error) {})
		setCanvasImage(v.image, th)
		go func() {
			img, err := decodeImageFile(path)
			u.post(func() {
				if !u.shownOK || u.shown.File != e.File || u.followRun {
					return
				}
				if err != nil {
					u.showError(err)
					return
				}
				setCanvasImage(v.image, img)
			})
		}()
	}
	v.image.Refresh()
	u.updateViewer()
}

// noSettingsText explains why an image without Kleinbild metadata offers no reuse.
const noSettingsText = "No Kleinbild settings in this image (it was not made by Kleinbild), so there are none to reuse."

// describeEntry is the detail line under the prompt.
func describeEntry(e galleryEntry) string {
	s := describeMeta(e.Meta)
	if !e.Meta.Created.IsZero() {
		s += " · " + e.Meta.Created.Local().Format("2 Jan 2006 15:04")
	}
	var refs []string
	for _, r := range e.Meta.References {
		refs = append(refs, filepath.Base(r.Path))
	}
	if len(refs) > 0 {
		s += "\nReferences: " + strings.Join(refs, ", ")
	}
	return s
}

// showLineage lists the gallery images e was made from and those made from e.
func (u *UI) showLineage(e galleryEntry) {
	v := &u.view
	var objs []fyne.CanvasObject
	add := func(label string, list []galleryEntry) {
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
			th := newTapThumb(fyne.NewSquareSize(44), func() { u.selectEntry(p.File, nil) })
			u.loadThumb(&th.thumbImage, p.SHA256, u.gallery.Path(p))
			objs = append(objs, th)
		}
	}
	add("Made from", u.gallery.Parents(e))
	add("Used in", u.gallery.Children(e))
	v.lineage.Objects = objs
	v.lineage.Refresh()
	if len(objs) == 0 {
		v.lineage.Hide()
	} else {
		v.lineage.Show()
	}
}

// clearShown empties the viewer.
func (u *UI) clearShown() {
	u.shownOK = false
	u.shown = galleryEntry{}
	setCanvasImage(u.view.image, nil)
	u.updateViewer()
}

func (u *UI) saveShownAs() {
	if !u.shownOK {
		return
	}
	src := u.gallery.Path(u.shown)
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil {
			u.showError(err)
			return
		}
		if wc == nil {
			return
		}
		go func() {
			err := copyFileTo(wc, src)
			u.post(func() {
				if err != nil {
					u.showError(fmt.Errorf("the image could not be saved: %w", err))
					return
				}
				u.setStatus("Saved a copy as " + wc.URI().Path())
			})
		}()
	}, u.win)
	d.SetFileName(u.shown.File)
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
}

// copyFileTo copies src into wc and closes wc.
func copyFileTo(wc io.WriteCloser, src string) error {
	f, err := os.Open(src)
	if err != nil {
		wc.Close()
		return err
	}
	defer f.Close()
	if _, err := io.Copy(wc, bufio.NewReader(f)); err != nil {
		wc.Close()
		return err
	}
	return wc.Close()
}

func (u *UI) copyShownPath() {
	if !u.shownOK {
		return
	}
	p := u.gallery.Path(u.shown)
	u.app.Clipboard().SetContent(p)
	u.setStatus("Copied " + p)
}

func (u *UI) revealShown() {
	if !u.shownOK {
		return
	}
	p := u.gallery.Path(u.shown)
	go func() {
		if err := reveal(p); err != nil {
			u.post(func() { u.showError(err) })
		}
	}()
}

func (u *UI) confirmDeleteShown() {
	if !u.shownOK {
		return
	}
	e := u.shown
	d := dialog.NewConfirm("Delete image?",
		fmt.Sprintf("%s will be deleted from the gallery folder. This cannot be undone.", e.File),
		func(ok bool) {
			if ok {
				u.deleteEntry(e)
			}
		}, u.win)
	d.SetConfirmText("Delete")
	d.SetDismissText("Cancel")
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
}

// deleteEntry removes an image from the gallery and the disk.
func (u *UI) deleteEntry(e galleryEntry) {
	if err := u.gallery.Delete(e.File); err != nil {
		u.showError(err)
	}
	if _, dup := u.gallery.ByHash(e.SHA256); !dup {
		u.thumbs.Remove(e.SHA256)
	}
	if u.shownOK && u.shown.File == e.File {
		u.clearShown()
	}
	u.gal.grid.UnselectAll()
	u.refreshGallery()
	u.setStatus("Deleted " + e.File)
}
