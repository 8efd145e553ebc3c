package galleryui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/trashview"
)

// Issue 22 item 5: the Trash view lists the trashed images (thumbnail, date), restores the
// ticked ones or all, and empties the trash after a confirmation; Undo goes on working on
// what is still in the trash and forgets what left it.
func TestTrashViewRestoresAndEmpties(t *testing.T) {
	data := t.TempDir()
	h := galleryHarness(t, data, "a red castle", "a blue sea", "a green forest", "a grey town")
	u := h.ui
	for i, f := range []string{"img-00.png", "img-01.png", "img-02.png"} {
		e, _ := u.Gallery.ByFile(f)
		u.gal.DeleteEntry(e)
		h.waitFor("the deletion", 5*time.Second, func() bool { return u.Gallery.IndexOf(f) < 0 && len(u.gal.undos) == i+1 })
	}
	tv := u.gal.showTrash()
	h.settle()
	if len(tv.Parts().Items) != 3 || tv.Parts().Items[0].Entry.File != "img-02.png" || !strings.Contains(tv.Parts().Count.Text, "3 images") {
		t.Fatalf("the trash lists %d (%q)", len(tv.Parts().Items), tv.Parts().Count.Text)
	}
	if !tv.Parts().RestoreSel.Disabled() || tv.Parts().RestoreAll.Disabled() || tv.Parts().Empty.Disabled() {
		t.Error("buttons: Restore should wait for a tick; Restore all and Empty should be on")
	}
	// The rows show a thumbnail and when the image was deleted.
	h.waitFor("a trash thumbnail", 5*time.Second, func() bool {
		found := false
		for _, o := range rowsOf(tv) {
			if thumb, when := o.Parts(); thumb.Img.Image != nil && strings.HasPrefix(when.Text, "deleted ") {
				found = true
			}
		}
		return found
	})

	// Tick the middle image (img-01, the second deletion) and restore it.
	tv.Parts().List.Select(1)
	if tv.Parts().RestoreSel.Disabled() || tv.Parts().RestoreSel.Text != "Restore 1" {
		t.Fatalf("after ticking one: %q disabled %v", tv.Parts().RestoreSel.Text, tv.Parts().RestoreSel.Disabled())
	}
	test.Tap(tv.Parts().RestoreSel)
	h.waitFor("img-01 back", 5*time.Second, func() bool { return u.Gallery.IndexOf("img-01.png") >= 0 && len(tv.Parts().Items) == 2 })
	h.settle()
	if len(u.gal.undos) != 2 {
		t.Errorf("%d undo steps left, want 2 (the restored deletion is gone)", len(u.gal.undos))
	}
	// Undo still brings back the last deletion still in the trash.
	u.gal.undo()
	h.waitFor("img-02 back by Undo", 5*time.Second, func() bool { return u.Gallery.IndexOf("img-02.png") >= 0 })
	h.settle()
	tv.Reload()
	if len(tv.Parts().Items) != 1 || tv.Parts().Items[0].Entry.File != "img-00.png" {
		t.Fatalf("the trash lists %d after Undo", len(tv.Parts().Items))
	}

	// Empty asks first; No keeps the image.
	test.Tap(tv.Parts().Empty)
	if tv.Parts().Confirm == nil {
		t.Fatal("Empty trash did not ask")
	}
	tv.Parts().Confirm.Dismiss()
	h.settle()
	if u.Gallery.TrashLen() != 1 {
		t.Fatal("dismissing the question emptied the trash")
	}
	test.Tap(tv.Parts().Empty)
	tv.Parts().Confirm.Confirm()
	h.waitFor("the trash emptied", 5*time.Second, func() bool { return u.Gallery.TrashLen() == 0 && len(tv.Parts().Items) == 0 })
	h.settle()
	if len(u.gal.undos) != 0 || u.gal.undoBar.Visible() {
		t.Errorf("after emptying: %d undo steps, strip visible %v", len(u.gal.undos), u.gal.undoBar.Visible())
	}
	des, _ := os.ReadDir(filepath.Join(data, "trash"))
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".json") {
			t.Errorf("%s left in the trash folder", de.Name())
		}
	}
	if !tv.Parts().RestoreAll.Disabled() || !tv.Parts().Empty.Disabled() || !strings.Contains(tv.Parts().Count.Text, "empty") {
		t.Errorf("empty trash: %q, Restore all disabled %v", tv.Parts().Count.Text, tv.Parts().RestoreAll.Disabled())
	}
}

// Restore all brings every trashed image back.
func TestTrashViewRestoreAll(t *testing.T) {
	h := galleryHarness(t, t.TempDir(), "a red castle", "a blue sea")
	u := h.ui
	for _, f := range []string{"img-00.png", "img-01.png"} {
		e, _ := u.Gallery.ByFile(f)
		u.gal.DeleteEntry(e)
		h.waitFor("the deletion", 5*time.Second, func() bool { return u.Gallery.IndexOf(f) < 0 })
	}
	tv := u.gal.showTrash()
	test.Tap(tv.Parts().RestoreAll)
	h.waitFor("both back", 5*time.Second, func() bool { return u.Gallery.Len() == 2 && len(tv.Parts().Items) == 0 })
}

// rowsOf are the Trash list's rows on screen.
func rowsOf(tv *trashview.View) []*trashview.RowView {
	var out []*trashview.RowView
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *trashview.RowView:
			out = append(out, v)
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	walk(tv.Parts().List)
	return out
}
