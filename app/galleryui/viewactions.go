package galleryui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/inpaintui"
	"kleinbild/app/widgets"
	"kleinbild/engine/imageio"
	"kleinbild/resources"
)

// buildActions makes the viewer's toolbar for the shown image: one row of icon buttons
// (named by their tooltips) beside the zoom buttons, the most used first, and a "More"
// button whose menu lists every action with its name. Those that do not fit the row are
// reached through the menu, so the actions never take the image's height (issue 28 item 6:
// three rows of eleven labelled buttons left a 1024² image about 270 px at 1366×768).
func (v *Viewer) buildActions() *fyne.Container {
	tips := v.sh.Tips
	v.ReuseBtn = widgets.NewTipButton(tips, theme.ContentUndoIcon(), "Reuse settings", func() {
		if v.ShownOK && v.Shown.HasMeta {
			v.ReuseSettings(v.Shown.Meta)
		}
	})
	v.SeedBtn = widgets.NewTipButton(tips, theme.NewThemedResource(resources.Dice), "Reuse seed", func() {
		if v.ShownOK && v.Shown.HasMeta {
			v.ReuseSeed(v.Shown.Meta.Seed)
			v.sh.SetStatus(fmt.Sprintf("Seed %d locked for the next generations.", v.Shown.Meta.Seed))
		}
	})
	asRef := widgets.NewTipButton(tips, theme.ContentAddIcon(), "Use as reference", func() {
		if v.ShownOK {
			v.AddReference(v.sh.Gallery.Path(v.Shown))
		}
	})
	larger := widgets.NewTipButton(tips, theme.ZoomInIcon(), "Render larger", v.RenderLarger)
	inpaint := widgets.NewTipButton(tips, theme.ColorPaletteIcon(), "Inpaint…", func() { v.OpenInpaint() }) // inpaint.go
	v.copyImageBtn = widgets.NewTipButton(tips, theme.ContentCopyIcon(), "Copy image", v.copyShownImage)
	v.DeleteBtn = widgets.NewTipButton(tips, theme.DeleteIcon(), "Delete", v.Gal.DeleteShown)
	copyPath := widgets.NewTipButton(tips, theme.ContentPasteIcon(), "Copy path", v.copyShownPath)
	saveAs := widgets.NewTipButton(tips, theme.DocumentSaveIcon(), "Save as…", v.saveShownAs)
	folder := widgets.NewTipButton(tips, theme.FolderOpenIcon(), "Show in folder", v.revealShown)
	v.actionBtns = []*widgets.TipButton{v.ReuseBtn, v.SeedBtn, asRef, larger, inpaint, v.copyImageBtn, v.DeleteBtn, copyPath, saveAs, folder}
	v.MoreBtn = widgets.NewTipButton(tips, theme.MoreHorizontalIcon(), "More actions", v.showActionMenu)
	objs := make([]fyne.CanvasObject, 0, len(v.actionBtns)+1)
	for _, b := range v.actionBtns {
		objs = append(objs, b)
	}
	return container.New(widgets.OverflowRow{}, append(objs, v.MoreBtn)...)
}

// actionMenuItems are the toolbar's actions as menu items, disabled where their button is.
func (v *Viewer) actionMenuItems() []*fyne.MenuItem {
	items := make([]*fyne.MenuItem, 0, len(v.actionBtns))
	for _, b := range v.actionBtns {
		it := fyne.NewMenuItem(b.Tip, b.OnTapped)
		it.Icon = b.Icon
		it.Disabled = b.Disabled()
		items = append(items, it)
	}
	return items
}

// showActionMenu opens the "More" menu under its button.
func (v *Viewer) showActionMenu() {
	c := v.sh.Win.Canvas()
	v.actionMenu = widget.NewPopUpMenu(fyne.NewMenu("", v.actionMenuItems()...), c)
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(v.MoreBtn)
	v.actionMenu.ShowAtPosition(pos.Add(fyne.NewPos(0, v.MoreBtn.Size().Height)))
}

// OpenInpaint opens Inpaint mode for the image the viewer shows, in a window of its own,
// and returns it (nil when there is none).
func (v *Viewer) OpenInpaint() *inpaintui.Mode {
	if !v.ShownOK || v.sh.Gallery == nil {
		return nil
	}
	path := v.sh.Gallery.Path(v.Shown)
	img, err := imageio.Load(path)
	if err != nil {
		v.sh.ShowError(err)
		return nil
	}
	return v.ShowInpaint(path, img)
}
