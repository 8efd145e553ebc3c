// Package trashview is the Trash dialog: the images in the gallery's trash, to restore or
// to delete for good.
package trashview

import (
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/widgets"
)

// View is the dialog listing the images in the trash: each with its thumbnail, prompt
// and deletion time. Ticked images can be restored, or all of them, and the trash can be
// emptied for good after a confirmation. Undo keeps working on the deletions still in the
// trash.
type View struct {
	sh *shell.Shell
	// changed runs after images left the trash (restored or deleted for good).
	changed func()
	items   []gallery.TrashItem
	checked map[string]bool

	list       *widgets.EscapeList
	count      *widget.Label
	restoreSel *widget.Button
	restoreAll *widget.Button
	empty      *widget.Button
	dlg        *dialog.CustomDialog
	confirm    *dialog.ConfirmDialog // the open "Empty the trash?" question
	busy       bool                  // a restore or emptying is under way
}

// row is one row of the list.
type row struct {
	check *widgets.EscapeCheck
	thumb *shell.ThumbImage
	name  *widget.Label
	when  *widget.Label
}

// Show opens the Trash view in sh's window; changed runs after images left the trash
// (restored or deleted for good).
func Show(sh *shell.Shell, changed func()) *View {
	t := &View{sh: sh, changed: changed, checked: map[string]bool{}}
	t.count = widget.NewLabel("")
	t.list = widgets.NewEscapeList(func() int { return len(t.items) }, t.newRow, t.updateRow)
	t.list.OnSelected = func(id widget.ListItemID) {
		t.list.UnselectAll()
		if id >= 0 && id < len(t.items) {
			t.toggle(t.items[id].Name)
		}
	}
	t.restoreSel = widget.NewButtonWithIcon("Restore", theme.ContentUndoIcon(), t.restoreChecked)
	t.restoreAll = widget.NewButton("Restore all", t.restoreEvery)
	t.empty = widget.NewButtonWithIcon("Empty trash…", theme.DeleteIcon(), t.askEmpty)
	t.empty.Importance = widget.DangerImportance
	closeBtn := widget.NewButton("Close", func() { t.dlg.Hide() })
	buttons := container.NewHBox(t.restoreSel, t.restoreAll, t.empty, closeBtn)
	note := shell.Hint(fmt.Sprintf("Deleted images stay here for %d days.", int(gallery.DefaultKeepTrash/(24*time.Hour))))
	content := container.NewBorder(container.NewVBox(t.count, note), container.NewCenter(buttons), nil, nil, t.list)
	t.dlg = dialog.NewCustomWithoutButtons("Trash", content, t.sh.Win)
	t.dlg.Resize(fyne.NewSize(560, 480))
	t.Reload()
	t.dlg.Show()
	t.sh.EscapeCloses(t.dlg, content)
	return t
}

func (t *View) newRow() fyne.CanvasObject {
	r := &row{check: widgets.NewEscapeCheck("", nil), thumb: shell.NewThumbImage(fyne.NewSquareSize(48)), name: widget.NewLabel(""), when: widget.NewLabel("")}
	r.check.OnEscape = func() { t.dlg.Hide() } // a tapped check has the focus: Escape still closes
	r.name.Truncation = fyne.TextTruncateEllipsis
	r.when.SizeName = theme.SizeNameCaptionText
	v := &RowView{row: r, obj: container.NewBorder(nil, nil, container.NewHBox(r.check, r.thumb), r.when, r.name)}
	v.ExtendBaseWidget(v)
	return v
}

// RowView carries a row's widgets with its layout.
type RowView struct {
	widget.BaseWidget
	row *row
	obj fyne.CanvasObject
}

// Parts are the row's thumbnail and its deletion time (the main window's tests).
func (v *RowView) Parts() (thumb *shell.ThumbImage, when *widget.Label) {
	return v.row.thumb, v.row.when
}

// CreateRenderer implements fyne.Widget.
func (v *RowView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(v.obj)
}

func (t *View) updateRow(id widget.ListItemID, obj fyne.CanvasObject) {
	r := obj.(*RowView).row
	if id < 0 || id >= len(t.items) {
		return
	}
	it := t.items[id]
	r.check.OnChanged = nil
	r.check.SetChecked(t.checked[it.Name])
	r.check.OnChanged = func(bool) { t.toggle(it.Name) }
	label := it.Entry.File
	if it.Entry.HasMeta && it.Entry.Meta.Prompt != "" {
		label = widgets.ClipRunes(it.Entry.Meta.Prompt, 120)
	}
	r.name.SetText(label)
	r.when.SetText("deleted " + it.Deleted.Local().Format("2 Jan 15:04"))
	key := it.Entry.SHA256
	path := t.sh.Gallery.TrashPath(it.Name)
	if key == "" {
		k, err := thumbcache.FileKey(path)
		if err != nil {
			r.thumb.Forget()
			r.thumb.SetBroken()
			return
		}
		key = k
	}
	t.sh.LoadThumb(r.thumb, key, path)
}

// toggle ticks or unticks the trashed image name.
func (t *View) toggle(name string) {
	t.checked[name] = !t.checked[name]
	t.list.Refresh()
	t.updateButtons()
}

// Reload lists the trash again.
func (t *View) Reload() {
	if lib := t.sh.Gallery; lib != nil {
		t.items = lib.Trash()
	} else {
		t.items = nil
	}
	for name := range t.checked {
		if !slices.ContainsFunc(t.items, func(it gallery.TrashItem) bool { return it.Name == name }) {
			delete(t.checked, name)
		}
	}
	switch len(t.items) {
	case 0:
		t.count.SetText("The trash is empty.")
	case 1:
		t.count.SetText("1 image in the trash. Tick images to restore them.")
	default:
		t.count.SetText(fmt.Sprintf("%d images in the trash. Tick images to restore them.", len(t.items)))
	}
	t.list.Refresh()
	t.updateButtons()
}

func (t *View) updateButtons() {
	n := 0
	for _, on := range t.checked {
		if on {
			n++
		}
	}
	t.restoreSel.SetText("Restore")
	if n > 0 {
		t.restoreSel.SetText(fmt.Sprintf("Restore %d", n))
	}
	for _, b := range []*widget.Button{t.restoreSel, t.restoreAll, t.empty} {
		b.Enable()
	}
	if t.busy || n == 0 {
		t.restoreSel.Disable()
	}
	if t.busy || len(t.items) == 0 {
		t.restoreAll.Disable()
		t.empty.Disable()
	}
}

func (t *View) restoreChecked() {
	var names []string
	for _, it := range t.items {
		if t.checked[it.Name] {
			names = append(names, it.Name)
		}
	}
	t.restore(names)
}

func (t *View) restoreEvery() {
	var names []string
	for _, it := range t.items {
		names = append(names, it.Name)
	}
	t.restore(names)
}

// restore brings the named images back (off the UI goroutine).
func (t *View) restore(names []string) {
	sh := t.sh
	lib := sh.Gallery
	if lib == nil || len(names) == 0 || t.busy {
		return
	}
	t.busy = true
	t.updateButtons()
	sh.BG.Add(1) // Close waits for the index write
	go func() {
		defer sh.BG.Done()
		es, err := lib.RestoreItems(names...)
		sh.Post(func() {
			t.busy = false
			if err != nil {
				sh.ShowError(fmt.Errorf("could not restore from the trash: %w", err))
			}
			t.changed()
			t.Reload()
			switch len(es) {
			case 0:
			case 1:
				sh.SetStatus("Restored " + es[0].File)
			default:
				sh.SetStatus(fmt.Sprintf("Restored %d images.", len(es)))
			}
		})
	}()
}

// askEmpty asks before the trash is emptied for good.
func (t *View) askEmpty() {
	n := len(t.items)
	if n == 0 {
		return
	}
	msg := "The image in the trash will be deleted for good. This cannot be undone."
	if n > 1 {
		msg = fmt.Sprintf("The %d images in the trash will be deleted for good. This cannot be undone.", n)
	}
	t.confirm = dialog.NewConfirm("Empty the trash?", msg, func(ok bool) {
		t.confirm = nil
		if ok {
			t.emptyTrash()
		}
	}, t.sh.Win)
	t.confirm.SetConfirmText("Empty trash")
	t.confirm.SetConfirmImportance(widget.DangerImportance)
	t.confirm.Show()
}

// emptyTrash removes the trashed images for good (off the UI goroutine).
func (t *View) emptyTrash() {
	sh := t.sh
	lib := sh.Gallery
	if lib == nil || t.busy {
		return
	}
	t.busy = true
	t.updateButtons()
	sh.BG.Add(1)
	go func() {
		defer sh.BG.Done()
		gone, err := lib.EmptyTrash()
		sh.ForgetThumbs(lib, gone)
		sh.Post(func() {
			t.busy = false
			if err != nil {
				sh.ShowError(err)
			}
			t.changed()
			t.Reload()
			sh.SetStatus(fmt.Sprintf("Emptied the trash: %d images deleted for good.", len(gone)))
		})
	}()
}

// Parts are the dialog's widgets and the trash as listed, for the main window's tests.
type Parts struct {
	Items                  []gallery.TrashItem
	List                   *widgets.EscapeList
	Count                  *widget.Label
	RestoreSel, RestoreAll *widget.Button
	Empty                  *widget.Button
	Confirm                *dialog.ConfirmDialog // the open "Empty the trash?" question
}

// Parts is the dialog's widgets and the trash as listed now (tests).
func (t *View) Parts() Parts {
	return Parts{Items: t.items, List: t.list, Count: t.count, RestoreSel: t.restoreSel, RestoreAll: t.restoreAll,
		Empty: t.empty, Confirm: t.confirm}
}
