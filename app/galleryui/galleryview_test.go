package galleryui

import (
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"kleinbild/app/gallery"
)

// Deleting needs no confirmation: the image goes to the trash inside the data folder, the
// viewer moves on to the next image, and Undo brings back the file, its entry (in the
// index on disk too) and its thumbnail.
func TestDeleteToTrashAndUndo(t *testing.T) {
	data := t.TempDir()
	h := galleryHarness(t, data, "a red castle", "a blue sea", "a green forest")
	u := h.ui
	u.gal.SelectEntry("img-01.png", nil)
	h.settle()
	path := filepath.Join(data, "gallery", "img-01.png")

	test.Tap(u.view.DeleteBtn)
	if top := h.win.Canvas().Overlays().Top(); top != nil {
		t.Fatal("deleting asked for confirmation although it can be undone")
	}
	h.waitFor("the image to go", 5*time.Second, func() bool { return len(u.gal.Visible) == 2 && u.gal.undoBar.Visible() })
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file is still in the gallery folder: %v", err)
	}
	trashed, _ := filepath.Glob(filepath.Join(data, "trash", "*-img-01.png"))
	if len(trashed) != 1 {
		t.Errorf("the file is not in the trash folder: %v", trashed)
	}
	if got := visiblePrompts(u); !slices.Equal(got, []string{"a green forest", "a red castle"}) {
		t.Errorf("grid shows %q", got)
	}
	// The next image (older, below it in the grid) is shown.
	if !u.view.ShownOK || u.view.Shown.File != "img-00.png" {
		t.Errorf("viewer shows %q (ok %v), want the next image", u.view.Shown.File, u.view.ShownOK)
	}
	if !strings.Contains(u.gal.undoText.Text, "img-01.png") {
		t.Errorf("undo strip says %q", u.gal.undoText.Text)
	}

	test.Tap(u.gal.UndoBtn)
	// Wait for what the UI shows (the storage is restored a moment before the UI hears of it).
	h.waitFor("the image to come back", 5*time.Second, func() bool { return len(u.gal.Visible) == 3 && !u.gal.undoBar.Visible() })
	h.settle()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("file not restored: %v", err)
	}
	if got := visiblePrompts(u); !slices.Equal(got, []string{"a green forest", "a blue sea", "a red castle"}) {
		t.Errorf("grid shows %q after undo", got)
	}
	if !u.view.ShownOK || u.view.Shown.File != "img-01.png" || u.gal.undoBar.Visible() {
		t.Errorf("after undo: viewer shows %q, undo strip visible %v", u.view.Shown.File, u.gal.undoBar.Visible())
	}
	raw, err := os.ReadFile(filepath.Join(data, "gallery", gallery.IndexName))
	if err != nil || !strings.Contains(string(raw), `"img-01.png"`) {
		t.Errorf("index on disk lacks the restored entry: %v", err)
	}
	cell := galleryCellFor(t, u, "img-01.png")
	h.waitFor("the restored thumbnail", 5*time.Second, func() bool { return cell.thumb.Img.Image != nil })
	if !u.gal.Grid.Visible() || len(u.gal.Visible) != 3 {
		t.Error("grid not back to three images")
	}
	// Undo has nothing left to do.
	u.gal.undo()
	h.settle()
	if u.Gallery.Len() != 3 || u.ErrorText() != "" {
		t.Errorf("a second undo: %d images, banner %q", u.Gallery.Len(), u.ErrorText())
	}
}

// Stars are saved in the gallery index and survive a restart; the Favourites filter shows
// only starred images.
func TestFavouritesPersistAndFilter(t *testing.T) {
	data := t.TempDir()
	h := galleryHarness(t, data, "one", "two", "three")
	u := h.ui
	test.Tap(galleryCellFor(t, u, "img-01.png").Star)
	// The gallery marks the star, writes its index and only then refreshes the cell: the
	// wait is on the cell's filled star (it timed out under load when it waited on the
	// index alone and then looked at the cell once).
	h.waitFor("the star in the index and the cell", 5*time.Second, func() bool {
		e, _ := u.Gallery.ByFile("img-01.png")
		return e.Favourite && galleryCellFor(t, u, "img-01.png").Star.Icon == starFilled
	})
	h.settle()
	if c := galleryCellFor(t, u, "img-00.png"); c.Star.Icon != starOutline {
		t.Error("an unstarred cell shows a filled star")
	}
	u.gal.Favs.SetChecked(true)
	if got := visiblePrompts(u); !slices.Equal(got, []string{"two"}) || u.gal.Count.Text != "1 of 3" {
		t.Errorf("favourites filter shows %q (%q)", got, u.gal.Count.Text)
	}
	h.close()

	h = newHarness(t, data, false)
	u = h.ui
	if e, _ := u.Gallery.ByFile("img-01.png"); !e.Favourite {
		t.Fatal("the star was lost on restart")
	}
	u.gal.Favs.SetChecked(true)
	if got := visiblePrompts(u); !slices.Equal(got, []string{"two"}) {
		t.Errorf("after restart the favourites filter shows %q", got)
	}
	// Unstarring under the filter takes the image out of it.
	u.gal.ToggleFavourite(u.gal.Visible[0])
	h.waitFor("the image to leave the filter", 5*time.Second, func() bool { return len(u.gal.Visible) == 0 })
	if !u.gal.noMatch.Visible() || !strings.Contains(u.gal.noMatch.Text, "favourites") {
		t.Errorf("empty favourites hint %q (visible %v)", u.gal.noMatch.Text, u.gal.noMatch.Visible())
	}
}

// The search entry keeps images whose prompt holds every word typed, ignoring case; the
// grid, its count and the order arrow keys follow change with it.
func TestSearchFiltersByPrompt(t *testing.T) {
	h := galleryHarness(t, t.TempDir(), "A red Castle", "a blue castle", "red fox", "castle of RED stone")
	u := h.ui
	test.Type(u.gal.Search, "castle red")
	if got := visiblePrompts(u); !slices.Equal(got, []string{"castle of RED stone", "A red Castle"}) {
		t.Errorf("search shows %q", got)
	}
	if u.gal.Count.Text != "2 of 4" || u.gal.IndexOf("img-00.png") != 1 || u.gal.IndexOf("img-01.png") != -1 {
		t.Errorf("count %q, indexes %d %d", u.gal.Count.Text, u.gal.IndexOf("img-00.png"), u.gal.IndexOf("img-01.png"))
	}
	// Selecting a cell shows the filtered list's image.
	u.gal.Grid.Select(1)
	if !u.view.ShownOK || u.view.Shown.File != "img-00.png" {
		t.Errorf("cell 1 showed %q", u.view.Shown.File)
	}
	u.gal.Search.SetText("green")
	if len(u.gal.Visible) != 0 || !u.gal.noMatch.Visible() || u.gal.Empty.Visible() {
		t.Errorf("no match: %d shown, hint %v, empty-gallery hint %v", len(u.gal.Visible), u.gal.noMatch.Visible(), u.gal.Empty.Visible())
	}
	u.gal.Search.SetText("")
	if len(u.gal.Visible) != 4 || u.gal.Count.Text != "4 images" || u.gal.noMatch.Visible() {
		t.Errorf("cleared search: %d shown, count %q", len(u.gal.Visible), u.gal.Count.Text)
	}
}

// In selection mode taps check cells, "Delete N" moves them all to the trash at once, and
// one Undo brings them all back; Escape and Done leave the mode.
func TestMultiSelectDeleteAndUndo(t *testing.T) {
	data := t.TempDir()
	h := galleryHarness(t, data, "p0", "p1", "p2", "p3", "p4")
	u := h.ui
	g := &u.gal
	test.Tap(findButton(g.normalBar, "Select"))
	if !g.selecting || !g.SelectBar.Visible() || g.normalBar.Visible() || !g.DeleteSel.Disabled() {
		t.Fatal("selection mode not entered")
	}
	// Escape leaves it.
	h.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if g.selecting || !g.normalBar.Visible() {
		t.Fatal("Escape did not leave selection mode")
	}
	test.Tap(findButton(g.normalBar, "Select"))
	for _, i := range []int{0, 2, 2, 3} { // cell 2 checked and unchecked again
		g.Grid.Select(i)
	}
	if u.view.ShownOK {
		t.Error("a tap in selection mode opened the image")
	}
	if g.DeleteSel.Text != "Delete 2" || g.DeleteSel.Disabled() || g.selLabel.Text != "2 selected" {
		t.Fatalf("selection bar %q %q", g.DeleteSel.Text, g.selLabel.Text)
	}
	if galleryCellFor(t, u, "img-04.png").check.Resource != theme.CheckButtonCheckedIcon() {
		t.Error("checked cell shows no check")
	}
	if galleryCellFor(t, u, "img-02.png").check.Resource != theme.CheckButtonIcon() {
		t.Error("unchecked cell shows no empty check box")
	}
	test.Tap(g.DeleteSel)
	h.waitFor("the images to go", 5*time.Second, func() bool { return len(u.gal.Visible) == 3 && g.undoBar.Visible() })
	if g.selecting {
		t.Error("still in selection mode after deleting")
	}
	if got := visiblePrompts(u); !slices.Equal(got, []string{"p3", "p2", "p0"}) {
		t.Errorf("grid shows %q", got)
	}
	if !strings.Contains(g.undoText.Text, "2 images") {
		t.Errorf("undo strip says %q", g.undoText.Text)
	}
	if n, _ := filepath.Glob(filepath.Join(data, "trash", "*.png")); len(n) != 2 {
		t.Errorf("trash holds %v", n)
	}
	test.Tap(g.UndoBtn)
	h.waitFor("the images to come back", 5*time.Second, func() bool { return len(u.gal.Visible) == 5 })
	h.settle()
	if got := visiblePrompts(u); !slices.Equal(got, []string{"p4", "p3", "p2", "p1", "p0"}) {
		t.Errorf("grid shows %q after undo", got)
	}
	// Done leaves the mode too, and nothing stays checked.
	test.Tap(findButton(g.normalBar, "Select"))
	g.Grid.Select(1)
	test.Tap(findButton(g.SelectBar, "Done"))
	if g.selecting || len(g.checkedEntries()) != 0 {
		t.Error("Done did not leave selection mode")
	}
}

// Images deleted more than 30 days ago are removed from the trash for good at start, with
// their cached thumbnails; younger ones stay.
func TestTrashExpiresAtStart(t *testing.T) {
	data := t.TempDir()
	h := galleryHarness(t, data, "old", "young")
	u := h.ui
	old, _ := u.Gallery.ByFile("img-00.png")
	if err := u.Thumbs.Put(old.SHA256, image.NewNRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	u.gal.DeleteEntry(old)
	h.waitFor("the first delete", 5*time.Second, func() bool { return len(u.gal.Visible) == 1 })
	young, _ := u.Gallery.ByFile("img-01.png")
	u.gal.DeleteEntry(young)
	h.waitFor("the second delete", 5*time.Second, func() bool { return len(u.gal.Visible) == 0 })
	h.close()

	// Backdate the first deletion by 31 days in the trash's record.
	idxPath := filepath.Join(data, "trash", gallery.IndexName)
	raw, err := os.ReadFile(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	var idx map[string]any
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	for _, it := range idx["items"].([]any) {
		m := it.(map[string]any)
		if strings.HasSuffix(m["name"].(string), "img-00.png") {
			m["deleted"] = time.Now().Add(-31 * 24 * time.Hour).Format(time.RFC3339Nano)
		}
	}
	raw, _ = json.Marshal(idx)
	if err := os.WriteFile(idxPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	h = newHarness(t, data, false)
	if n := h.ui.Gallery.TrashLen(); n != 1 {
		t.Errorf("%d images left in the trash, want the young one", n)
	}
	if left, _ := filepath.Glob(filepath.Join(data, "trash", "*-img-00.png")); len(left) != 0 {
		t.Errorf("old image still in the trash: %v", left)
	}
	if left, _ := filepath.Glob(filepath.Join(data, "trash", "*-img-01.png")); len(left) != 1 {
		t.Errorf("young image gone from the trash: %v", left)
	}
	if _, err := os.Stat(filepath.Join(data, "thumbs", old.SHA256+".png")); !os.IsNotExist(err) {
		t.Errorf("the expired image's thumbnail is still cached: %v", err)
	}
}

// A large gallery opens without reading every image: the grid makes thumbnails only for
// the cells it shows, and searching it needs no file.
func TestLargeGalleryMakesOnlyVisibleThumbnails(t *testing.T) {
	const n = 400
	prompts := make([]string, n)
	for i := range prompts {
		prompts[i] = fmt.Sprintf("picture %d", i)
	}
	data := t.TempDir()
	h := galleryHarness(t, data, prompts...)
	u := h.ui
	if len(u.gal.Visible) != n || u.gal.Count.Text != fmt.Sprintf("%d images", n) {
		t.Fatalf("grid shows %d images (%q)", len(u.gal.Visible), u.gal.Count.Text)
	}
	thumbs := func() int {
		des, _ := os.ReadDir(filepath.Join(data, "thumbs"))
		return len(des)
	}
	h.waitFor("the first thumbnails", 10*time.Second, func() bool { return thumbs() > 0 })
	h.settle()
	time.Sleep(200 * time.Millisecond) // let the workers finish what they were given
	h.settle()
	t.Logf("%d thumbnails made", thumbs())
	if got := thumbs(); got >= n/4 {
		t.Errorf("%d thumbnails made for %d images, most of them not on screen", got, n)
	}
	test.Type(u.gal.Search, "picture 39")
	if got := visiblePrompts(u); len(got) != 14 || got[0] != "picture 399" { // 39, 139, 239, 339, 390–399
		t.Errorf("search in a large gallery shows %d: %q", len(got), got)
	}
}

// A click on a cell shows its image (and ticks it in selection mode). The cell takes
// secondary taps for its menu, so it must take primary ones itself: a real window gives a
// click to the topmost object taking any kind of tap, and the grid under the cell never saw
// it (before: clicking a thumbnail did nothing in the real window once the menu existed).
func TestClickingACellShowsIt(t *testing.T) {
	h := galleryHarness(t, t.TempDir(), "a red castle", "a blue sea", "a green forest")
	u := h.ui
	h.settle()
	cell := galleryCellFor(t, u, "img-01.png")
	tappable, ok := any(cell).(fyne.Tappable)
	if !ok {
		t.Fatal("gallery cells take secondary taps but not primary ones: clicks never reach the grid")
	}
	tappable.Tapped(&fyne.PointEvent{})
	h.settle()
	if !u.view.ShownOK || u.view.Shown.File != "img-01.png" {
		t.Fatalf("after a click the viewer shows %q (%v)", u.view.Shown.File, u.view.ShownOK)
	}
	tappable.Tapped(&fyne.PointEvent{}) // again: still shown, nothing else happens
	h.settle()
	if u.view.Shown.File != "img-01.png" {
		t.Fatalf("a second click shows %q", u.view.Shown.File)
	}
	// In selection mode a click ticks and unticks.
	u.gal.SetSelecting(true)
	tappable.Tapped(&fyne.PointEvent{})
	if !u.gal.checked["img-01.png"] {
		t.Error("a click in selection mode did not tick the image")
	}
	tappable.Tapped(&fyne.PointEvent{})
	if u.gal.checked["img-01.png"] {
		t.Error("a second click in selection mode did not untick it")
	}
}

// TestUndoSeveralDeletions deletes two images one after the other, then presses Ctrl+Z
// (Fyne 2.7 sends fyne.ShortcutUndo) twice: both come back, the last one first. (Before:
// the shortcut was never matched, and only the last deletion could be undone.)
func TestUndoSeveralDeletions(t *testing.T) {
	data := t.TempDir()
	h := galleryHarness(t, data, "a red castle", "a blue sea", "a green forest")
	u := h.ui
	for i, f := range []string{"img-00.png", "img-02.png"} {
		e, _ := u.Gallery.ByFile(f)
		u.gal.DeleteEntry(e)
		h.waitFor("the deletion", 5*time.Second, func() bool { return u.Gallery.IndexOf(f) < 0 && len(u.gal.undos) == i+1 })
	}
	ctrlZ := func() {
		t.Helper()
		sc, ok := h.win.Canvas().(fyne.Shortcutable)
		if !ok {
			t.Fatal("the test canvas takes no shortcuts")
		}
		sc.TypedShortcut(&fyne.ShortcutUndo{})
	}
	ctrlZ()
	h.waitFor("the second image back", 5*time.Second, func() bool { return u.Gallery.IndexOf("img-02.png") >= 0 })
	h.settle()
	if u.Gallery.IndexOf("img-00.png") >= 0 || !u.gal.undoBar.Visible() || !strings.Contains(u.gal.undoText.Text, "img-00.png") {
		t.Fatalf("after one undo: strip visible %v says %q", u.gal.undoBar.Visible(), u.gal.undoText.Text)
	}
	ctrlZ()
	h.waitFor("the first image back", 5*time.Second, func() bool { return u.Gallery.IndexOf("img-00.png") >= 0 })
	h.settle()
	if u.Gallery.Len() != 3 || u.gal.undoBar.Visible() {
		t.Errorf("after two undos: %d images, strip visible %v", u.Gallery.Len(), u.gal.undoBar.Visible())
	}
}
