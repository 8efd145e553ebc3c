package inputs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/shell"
	"kleinbild/internal/testfix/metapng"
)

// Dropped images become references, each shown with its thumbnail and a remove button;
// files that are no image, or too small, are refused in the banner. (Root's
// TestDropAddsReferences follows a reference into a run.)
func TestDropAddsReferences(t *testing.T) {
	h := newHarness(t, t.TempDir())
	r := &h.refs
	dir := t.TempDir()
	a := metapng.Write(t, dir, "a.png", 96, 80, nil)
	b := metapng.Write(t, dir, "b.png", 64, 64, nil)
	h.Wait("the drop", h.drop([]fyne.URI{storage.NewFileURI(a), storage.NewFileURI(b)}))
	if len(r.paths) != 2 || r.paths[0] != a || r.paths[1] != b {
		t.Fatalf("refs = %v", r.paths)
	}
	if len(r.grid.Objects) != 2 || r.hint.Visible() {
		t.Errorf("%d reference thumbnails shown", len(r.grid.Objects))
	}
	h.waitFor("reference thumbnails", func() bool {
		for _, o := range r.grid.Objects {
			if o.(*fyne.Container).Objects[0].(*shell.ThumbImage).Img.Image == nil {
				return false
			}
		}
		return true
	})
	// Remove the second one with its button.
	test.Tap(uitest.FindTipButton(r.grid.Objects[1], "Remove this reference"))
	if len(r.paths) != 1 || r.paths[0] != a {
		t.Fatalf("after remove: refs = %v", r.paths)
	}
	// Not an image, and too small.
	txt := filepath.Join(dir, "notes.txt")
	os.WriteFile(txt, []byte("hello"), 0o644)
	h.Wait("the drop", h.drop([]fyne.URI{storage.NewFileURI(txt)}))
	if !strings.Contains(h.sh.ErrorText(), "Cannot use notes.txt as a reference: it is not an image") {
		t.Errorf("banner after dropping text: %q", h.sh.ErrorText())
	}
	tiny := metapng.Write(t, dir, "tiny.png", 8, 8, nil)
	h.Wait("the drop", h.drop([]fyne.URI{storage.NewFileURI(tiny)}))
	if !strings.Contains(h.sh.ErrorText(), "too small") || len(r.paths) != 1 {
		t.Errorf("banner after dropping a tiny image: %q (refs %v)", h.sh.ErrorText(), r.paths)
	}
}

// Three images ticked in one trip of the chooser become three references, in the order
// ticked; the chooser opens in the pictures folder first and then where the images came
// from, also after a restart.
func TestChooserAddsSeveralReferences(t *testing.T) {
	_, pictures := uitest.FakeHome(t)
	shots := filepath.Join(pictures, "shots")
	os.MkdirAll(filepath.Join(shots, "older"), 0o755)
	var want []string
	for _, n := range []string{"c.png", "a.png", "b.png"} {
		want = append(want, metapng.Write(t, shots, n, 96, 80, nil))
	}
	data := t.TempDir()
	h := newHarness(t, data)
	r := &h.refs
	r.showAdd()
	top := h.win.Canvas().Overlays().Top()
	h.waitFor("the chooser's listing", func() bool { return uitest.FindEntry(top, pictures) != nil })
	typePath(uitest.FindEntry(top, pictures), shots)
	h.waitFor("the folder's listing", func() bool {
		return slices.Contains(uitest.LabelTexts(top), "3 images, 1 folder. Tick the images to add; you can tick images in several folders.")
	})
	list := uitest.FindList(top)             // older, a.png, b.png, c.png
	for _, i := range []int{3, 1, 2, 1, 1} { // c, a, b; a unticked and ticked again
		list.Select(i)
	}
	want = []string{want[0], want[2], want[1]}
	test.Tap(uitest.FindButton(top, "Add (3)"))
	h.waitFor("three references", func() bool { return len(r.paths) == 3 })
	if !slices.Equal(r.paths, want) {
		t.Errorf("refs %v, want %v", r.paths, want)
	}
	if len(r.grid.Objects) != 3 || r.hint.Visible() {
		t.Errorf("%d thumbnails shown", len(r.grid.Objects))
	}
	if h.sh.ErrorText() != "" {
		t.Errorf("banner %q", h.sh.ErrorText())
	}

	// The next chooser opens where the images came from, also after a restart.
	r.showAdd()
	top = h.win.Canvas().Overlays().Top()
	h.waitFor("the second chooser in "+shots, func() bool { return uitest.FindEntry(top, shots) != nil })
	test.Tap(uitest.FindButton(top, "Cancel"))
	h.close()
	h2 := newHarness(t, data)
	h2.refs.showAdd()
	top = h2.win.Canvas().Overlays().Top()
	h2.waitFor("the chooser after a restart in "+shots, func() bool { return uitest.FindEntry(top, shots) != nil })
}
