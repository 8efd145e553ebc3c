package app

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// fakeHome points HOME and XDG_CONFIG_HOME at a new folder with a Pictures folder named in
// user-dirs.dirs; it returns home and the pictures folder.
func fakeHome(t *testing.T) (home, pictures string) {
	t.Helper()
	home = t.TempDir()
	pictures = filepath.Join(home, "Bilder")
	if err := os.MkdirAll(pictures, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, ".config")
	os.MkdirAll(cfg, 0o755)
	os.WriteFile(filepath.Join(cfg, "user-dirs.dirs"), []byte("# written by xdg-user-dirs-update\nXDG_PICTURES_DIR=\"$HOME/Bilder\"\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", cfg)
	return home, pictures
}

// entryWithText reports whether o holds an entry showing text.
func entryWithText(o fyne.CanvasObject, text string) bool {
	switch v := o.(type) {
	case *widget.Entry:
		return v.Text == text
	case *widgets.EscapeEntry: // the chooser's path and name fields
		return v.Text == text
	case *fyne.Container:
		for _, c := range v.Objects {
			if entryWithText(c, text) {
				return true
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if entryWithText(c, text) {
				return true
			}
		}
	}
	return false
}

// The first Add… opens in the user's pictures folder (not the model folder), shows it as
// a path that can be edited, and logs no errors (Fyne's dialog logged "Getting favorite
// locations" failures).
func TestAddReferenceStartsInPictures(t *testing.T) {
	_, pictures := fakeHome(t)
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	add := findButton(h.win.Canvas().Content(), "Add…")
	if add == nil {
		t.Fatal("no Add… button")
	}
	test.Tap(add)
	h.settle()
	top := h.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Add… opened nothing")
	}
	if !entryWithText(top, pictures) {
		t.Errorf("the file chooser does not show %s as a path to edit", pictures)
	}
	if strings.Contains(logged.String(), "favorite") {
		t.Errorf("logged: %s", logged.String())
	}
}

// chooserLoaded runs the event loop until c has listed its folder.
func (h *harness) chooserLoaded(c *fileChooser) {
	h.t.Helper()
	h.waitFor("the chooser's listing", 10*time.Second, func() bool { return !c.loading })
}

// itemIndex is the list row of name in c, or -1.
func itemIndex(c *fileChooser, name string) int {
	for i, it := range c.items {
		if it.name == name {
			return i
		}
	}
	return -1
}

func itemNames(c *fileChooser) []string {
	var out []string
	for _, it := range c.items {
		out = append(out, it.name)
	}
	return out
}

// Three images ticked in one trip become three references; the chooser remembers the
// folder for the next time, also after a restart.
func TestChooserAddsSeveralFiles(t *testing.T) {
	_, pictures := fakeHome(t)
	shots := filepath.Join(pictures, "shots")
	os.MkdirAll(filepath.Join(shots, "older"), 0o755)
	var want []string
	for _, n := range []string{"c.png", "a.png", "B.jpg"} {
		p := filepath.Join(shots, n)
		if n == "B.jpg" {
			p = writeTestPNG(t, shots, "B.png", 64, 64, nil)
			os.Rename(p, filepath.Join(shots, n)) // a PNG under a .jpg name still decodes
			p = filepath.Join(shots, n)
		} else {
			writeTestPNG(t, shots, n, 96, 80, nil)
		}
		want = append(want, p)
	}
	os.WriteFile(filepath.Join(shots, "notes.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(shots, ".hidden.png"), []byte("x"), 0o644)

	data := t.TempDir()
	h := newHarness(t, data, tinyModel(t), newFakeGen().open)
	u := h.ui
	c := u.refs.showAdd()
	h.chooserLoaded(c)
	if c.dir != pictures {
		t.Fatalf("chooser opened in %s, want %s", c.dir, pictures)
	}
	c.list.Select(itemIndex(c, "shots"))
	h.chooserLoaded(c)
	if got := strings.Join(itemNames(c), ","); got != "older,a.png,B.jpg,c.png" {
		t.Fatalf("listed %s", got)
	}
	if !c.ok.Disabled() {
		t.Error("Add is enabled with nothing ticked")
	}
	for _, p := range want {
		c.list.Select(itemIndex(c, filepath.Base(p)))
	}
	if c.ok.Text != "Add (3)" || c.ok.Disabled() {
		t.Errorf("confirm button %q (disabled %v)", c.ok.Text, c.ok.Disabled())
	}
	// Unticking and ticking again keeps the count.
	c.list.Select(itemIndex(c, "a.png"))
	c.list.Select(itemIndex(c, "a.png"))
	want = []string{want[0], want[2], want[1]}
	test.Tap(c.ok)
	h.waitFor("three references", 10*time.Second, func() bool { return len(u.refs.paths) == 3 })
	if !slices.Equal(u.refs.paths, want) {
		t.Errorf("refs %v, want %v", u.refs.paths, want)
	}
	if len(u.refs.grid.Objects) != 3 || u.refs.hint.Visible() {
		t.Errorf("%d thumbnails shown", len(u.refs.grid.Objects))
	}
	if u.ErrorText() != "" {
		t.Errorf("banner %q", u.ErrorText())
	}

	// The next chooser opens where the images came from, also after a restart.
	c2 := u.refs.showAdd()
	h.chooserLoaded(c2)
	if c2.dir != shots {
		t.Errorf("second chooser opened in %s, want %s", c2.dir, shots)
	}
	test.Tap(findButton(h.win.Canvas().Overlays().Top(), "Cancel"))
	h.settle()
	h.close()
	h2 := newHarness(t, data, tinyModel(t), newFakeGen().open)
	c3 := h2.ui.refs.showAdd()
	h2.chooserLoaded(c3)
	if c3.dir != shots {
		t.Errorf("after a restart the chooser opened in %s, want %s", c3.dir, shots)
	}
}

// A typed folder path opens the folder (relative to the one shown, or from ~); a typed
// image path adds it; anything else says what is wrong.
func TestChooserTypedPath(t *testing.T) {
	home, _ := fakeHome(t)
	sub := filepath.Join(home, "work", "refs")
	os.MkdirAll(sub, 0o755)
	img := writeTestPNG(t, sub, "cat.png", 96, 80, nil)
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	c := u.refs.showAdd()
	h.chooserLoaded(c)
	enter := func(text string) {
		c.path.SetText("")
		test.Type(c.path, text)
		c.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		h.chooserLoaded(c)
	}
	enter("~/work")
	if c.dir != filepath.Join(home, "work") || itemIndex(c, "refs") < 0 {
		t.Fatalf("after typing ~/work: in %s with %v", c.dir, itemNames(c))
	}
	enter("refs")
	if c.dir != sub || itemIndex(c, "cat.png") < 0 {
		t.Fatalf("after typing refs: in %s with %v", c.dir, itemNames(c))
	}
	enter(filepath.Join(home, "nothing-here"))
	if c.dir != sub || !strings.Contains(c.msg.Text, "no such file or folder") || c.path.Text != filepath.Join(home, "nothing-here") {
		t.Errorf("a missing path: in %s, message %q, path %q", c.dir, c.msg.Text, c.path.Text)
	}
	notes := filepath.Join(sub, "notes.txt")
	os.WriteFile(notes, []byte("x"), 0o644)
	enter(notes)
	if !strings.Contains(c.msg.Text, "not an image") || len(u.refs.paths) != 0 {
		t.Errorf("a text file: message %q, refs %v", c.msg.Text, u.refs.paths)
	}
	enter(img)
	h.waitFor("the typed reference", 10*time.Second, func() bool { return len(u.refs.paths) == 1 })
	if u.refs.paths[0] != img || h.win.Canvas().Overlays().Top() != nil {
		t.Errorf("refs %v; chooser still open: %v", u.refs.paths, h.win.Canvas().Overlays().Top() != nil)
	}
}

// A folder that cannot be read gives a message and keeps the folder shown.
func TestChooserUnreadableFolder(t *testing.T) {
	_, pictures := fakeHome(t)
	gone := filepath.Join(pictures, "gone")
	os.MkdirAll(gone, 0o755)
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	c := h.ui.refs.showAdd()
	h.chooserLoaded(c)
	os.Remove(gone)
	c.list.Select(itemIndex(c, "gone"))
	h.chooserLoaded(c)
	if c.dir != pictures || !strings.Contains(c.msg.Text, "cannot be read") {
		t.Errorf("in %s, message %q", c.dir, c.msg.Text)
	}
	if _, err := listDir(filepath.Join(pictures, "x.png"), true); err == nil {
		t.Error("listing a missing folder gave no error")
	}
}

// Browse… in the model settings opens Kleinbild's chooser beside the current model folder,
// with no errors logged, and picks a folder. (Before: Fyne's folder dialog, which logged
// "Getting favorite locations" and had no path to type.)
func TestBrowseModelFolder(t *testing.T) {
	fakeHome(t)
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	model := tinyModel(t)
	h := newHarness(t, t.TempDir(), model, newFakeGen().open)
	h.ui.ShowModelDialog()
	h.settle()
	test.Tap(findButton(h.win.Canvas().Overlays().Top(), "Browse…"))
	h.settle()
	top := h.win.Canvas().Overlays().Top()
	if !entryWithText(top, filepath.Dir(model)) {
		t.Fatalf("the folder chooser does not show %s as a path to edit", filepath.Dir(model))
	}
	if strings.Contains(logged.String(), "favorite") {
		t.Errorf("logged: %s", logged.String())
	}
	c := browseFolder(h.ui.Shell, "Choose", "", func(string) {})
	h.chooserLoaded(c)
	if c.dir != os.Getenv("HOME") {
		t.Errorf("without a start the folder chooser opens in %s, want home", c.dir)
	}
	var got string
	c = browseFolder(h.ui.Shell, "Choose", model, func(dir string) { got = dir })
	h.chooserLoaded(c)
	c.list.Select(itemIndex(c, filepath.Base(model)))
	h.chooserLoaded(c)
	if c.dir != model || len(c.items) == 0 || !c.items[0].dir {
		t.Fatalf("in %s with %v", c.dir, itemNames(c))
	}
	for _, it := range c.items {
		if !it.dir {
			t.Errorf("the folder chooser lists the file %s", it.name)
		}
	}
	test.Tap(c.ok)
	if got != model {
		t.Errorf("chose %q, want %q", got, model)
	}
}
