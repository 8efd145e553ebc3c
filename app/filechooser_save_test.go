package app

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/shell"
)

// saveHarness starts the UI over a gallery with one image, shows it and opens "Save as…";
// it returns the harness, the chooser (listed) and the image's path.
func saveHarness(t *testing.T, data string) (*harness, *fileChooser, string) {
	t.Helper()
	h := galleryHarness(t, data, "a red castle")
	u := h.ui
	u.gal.SelectEntry("img-00.png", nil)
	h.settle()
	b := findButton(u.view.Actions, "Save as…")
	if b == nil {
		t.Fatal("the viewer has no Save as… button")
	}
	test.Tap(b)
	c, _ := u.Chooser.(*fileChooser)
	if c == nil {
		t.Fatal("Save as… opened no chooser")
	}
	h.chooserLoaded(c)
	return h, c, u.Gallery.Path(u.view.Shown)
}

// enterPath types text into the chooser's path and presses Enter.
func (h *harness) enterPath(c *fileChooser, text string) {
	h.t.Helper()
	c.path.SetText("")
	test.Type(c.path, text)
	c.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.chooserLoaded(c)
}

func sameBytes(t *testing.T, a, b string) bool {
	t.Helper()
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// noTempFiles fails when a temporary file of an atomic write is left in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.Contains(de.Name(), ".tmp-") {
			t.Errorf("temporary file %s left in %s", de.Name(), dir)
		}
	}
}

// Issue 12 (defects 9 and 11): "Save as…" uses Kleinbild's chooser: it opens in the
// pictures folder with the image's name to edit, a typed folder opens, Save writes the
// copy there (the format's extension added), the folder is remembered, and a typed full
// path saves at once. No "Getting favorite locations" line is logged (Fyne's dialog did).
func TestSaveAsIntoTypedFolder(t *testing.T) {
	home, pictures := fakeHome(t)
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	out := filepath.Join(home, "exports")
	os.MkdirAll(out, 0o755)
	data := t.TempDir()
	h, c, src := saveHarness(t, data)
	u := h.ui
	if c.dir != pictures || c.name.Text != "img-00.png" || c.ok.Text != "Save" || c.ok.Disabled() {
		t.Fatalf("chooser in %s, name %q, button %q (disabled %v)", c.dir, c.name.Text, c.ok.Text, c.ok.Disabled())
	}
	h.enterPath(c, "~/exports")
	if c.dir != out {
		t.Fatalf("after typing ~/exports the chooser shows %s (%q)", c.dir, c.msg.Text)
	}
	c.name.SetText("castle")
	test.Tap(c.ok)
	want := filepath.Join(out, "castle.png")
	h.waitFor("the copy", 10*time.Second, func() bool { return strings.Contains(u.Status.Text, "Saved a copy") })
	if !sameBytes(t, src, want) {
		t.Errorf("%s is not a copy of %s", want, src)
	}
	if top := h.win.Canvas().Overlays().Top(); top != nil {
		t.Error("the chooser stays open after saving")
	}
	noTempFiles(t, out)
	if u.Settings.SaveDir != out {
		t.Errorf("remembered save folder %q, want %q", u.Settings.SaveDir, out)
	}

	// The next Save as… opens there; a typed full path saves at once.
	test.Tap(findButton(u.view.Actions, "Save as…"))
	c2, _ := u.Chooser.(*fileChooser)
	h.chooserLoaded(c2)
	if c2 == c || c2.dir != out {
		t.Fatalf("the second chooser opened in %s, want %s", c2.dir, out)
	}
	if i := itemIndex(c2, "castle.png"); i < 0 {
		t.Errorf("the saved image is not listed for reference: %v", itemNames(c2))
	}
	typed := filepath.Join(home, "typed.png")
	c2.path.SetText("")
	test.Type(c2.path, typed)
	c2.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the typed copy", 10*time.Second, func() bool { return strings.Contains(u.Status.Text, typed) })
	if !sameBytes(t, src, typed) {
		t.Errorf("%s is not a copy", typed)
	}
	if strings.Contains(logged.String(), "favorite") {
		t.Errorf("logged: %s", logged.String())
	}

	// The folder is remembered across a restart.
	h.close()
	h2 := newHarness(t, data, "", newFakeGen().open)
	if h2.ui.Settings.SaveDir != home {
		t.Errorf("after a restart the save folder is %q, want %q", h2.ui.Settings.SaveDir, home)
	}
}

// Saving over an existing file asks first (Cancel keeps the file); folders, devices, the
// image itself and another format are refused with a reason, and the chooser stays open.
func TestSaveAsAsksBeforeReplacing(t *testing.T) {
	home, _ := fakeHome(t)
	out := filepath.Join(home, "out")
	os.MkdirAll(filepath.Join(out, "sub.png"), 0o755)
	old := writeTestPNG(t, out, "keep.png", 8, 8, nil)
	oldBytes, _ := os.ReadFile(old)
	data := t.TempDir()
	h, c, src := saveHarness(t, data)
	u := h.ui
	h.enterPath(c, out)
	i := itemIndex(c, "keep.png")
	if i < 0 || itemIndex(c, "sub.png") < 0 {
		t.Fatalf("listed %v", itemNames(c))
	}
	c.list.Select(i)
	if c.name.Text != "keep.png" {
		t.Errorf("tapping an existing image gives the name %q", c.name.Text)
	}
	test.Tap(c.ok)
	h.waitFor("the question", 5*time.Second, func() bool { return findButton(h.win.Canvas().Overlays().Top(), "Replace") != nil })
	h.tapDialogButton("Cancel")
	h.settle()
	if got, _ := os.ReadFile(old); !bytes.Equal(got, oldBytes) {
		t.Error("the file was replaced although the user said Cancel")
	}
	if c.saving || c.ok.Disabled() || h.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("after Cancel: saving %v, Save disabled %v", c.saving, c.ok.Disabled())
	}

	test.Tap(c.ok)
	h.waitFor("the question", 5*time.Second, func() bool { return findButton(h.win.Canvas().Overlays().Top(), "Replace") != nil })
	h.tapDialogButton("Replace")
	h.waitFor("the copy", 10*time.Second, func() bool { return strings.Contains(u.Status.Text, "Saved a copy") })
	if !sameBytes(t, src, old) {
		t.Error("the file was not replaced by the copy")
	}
	noTempFiles(t, out)

	test.Tap(findButton(u.view.Actions, "Save as…"))
	c, _ = u.Chooser.(*fileChooser)
	h.chooserLoaded(c)
	refused := func(name, want string) {
		t.Helper()
		c.name.SetText(name)
		test.Tap(c.ok)
		h.waitFor("the save to end", 5*time.Second, func() bool { return !c.saving })
		if !strings.Contains(c.msg.Text, want) {
			t.Errorf("saving as %s: message %q, want %q", name, c.msg.Text, want)
		}
		if h.win.Canvas().Overlays().Top() == nil {
			t.Errorf("saving as %s closed the chooser", name)
		}
	}
	refused("sub.png", "is a folder")
	refused("picture.webp", "cannot write WebP")
	refused("picture.gif", "writes .png or .jpg")
	refused(filepath.Join(home, "missing", "x.png"), "no such file or folder")
	refused(src, "the image itself")
	if runtime.GOOS == "linux" {
		// /dev/null is a character device; its name does not end in .png, so link one.
		dev := filepath.Join(out, "null.png")
		if os.Symlink("/dev/null", dev) == nil {
			refused(dev, "character device")
		}
	}
}

// A folder Kleinbild may not write in gives a plain message; nothing is left there.
func TestSaveAsReadOnlyFolder(t *testing.T) {
	home, _ := fakeHome(t)
	ro := filepath.Join(home, "locked")
	os.MkdirAll(ro, 0o755)
	os.Chmod(ro, 0o555)
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	if f, err := os.CreateTemp(ro, "probe"); err == nil {
		// Running as root: permissions do not stop writes. /sys refuses new files even to root.
		f.Close()
		os.Remove(f.Name())
		ro = "/sys"
		if _, err := os.CreateTemp(ro, "probe"); !errorsIsPermission(err) {
			t.Skip("no folder here refuses writes")
		}
	}
	h, c, _ := saveHarness(t, t.TempDir())
	h.enterPath(c, ro)
	if c.dir != ro {
		t.Fatalf("chooser in %s (%q)", c.dir, c.msg.Text)
	}
	test.Tap(c.ok)
	h.waitFor("the save to end", 10*time.Second, func() bool { return !c.saving && c.msg.Text != "" && !strings.Contains(c.msg.Text, "here") })
	if !strings.Contains(c.msg.Text, "permission denied") || !strings.Contains(c.msg.Text, ro) {
		t.Errorf("message %q", c.msg.Text)
	}
	if _, err := os.Stat(filepath.Join(ro, "img-00.png")); err == nil {
		t.Error("a file was written")
	}
	noTempFiles(t, ro)
	if h.win.Canvas().Overlays().Top() == nil || c.ok.Disabled() {
		t.Error("the chooser closed or cannot try again")
	}
}

func errorsIsPermission(err error) bool {
	return err != nil && (os.IsPermission(err) || strings.Contains(err.Error(), fs.ErrPermission.Error()))
}

// Issue 12 defect 11: no Fyne file or folder dialog (which logs "Getting favorite
// locations" errors and has no typed path) is left in the app.
func TestNoFyneFileDialogs(t *testing.T) {
	banned := map[string]bool{"NewFileOpen": true, "NewFileSave": true, "ShowFileOpen": true,
		"ShowFileSave": true, "NewFolderOpen": true, "ShowFolderOpen": true}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "dialog" && banned[sel.Sel.Name] {
					t.Errorf("%s uses dialog.%s", p, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The status line counts in words: "6 images", "1 folder", zero parts left out.
func TestChooserSummaryPlurals(t *testing.T) {
	for _, c := range []struct {
		files, dirs int
		want        string
	}{{6, 0, "6 images"}, {1, 1, "1 image, 1 folder"}, {0, 2, "2 folders"}, {0, 0, ""}, {2, 3, "2 images, 3 folders"}} {
		if got := countList(c.files, "image", "images", c.dirs, "folder", "folders"); got != c.want {
			t.Errorf("countList(%d, %d) = %q, want %q", c.files, c.dirs, got, c.want)
		}
	}
	items := func(files, dirs int) []dirItem {
		var out []dirItem
		for i := range dirs {
			out = append(out, dirItem{name: fmt.Sprint("d", i), dir: true})
		}
		for i := range files {
			out = append(out, dirItem{name: fmt.Sprint(i, ".png")})
		}
		return out
	}
	for _, c := range []struct {
		what        chooseWhat
		files, dirs int
		want        string
	}{
		{chooseImages, 6, 0, "6 images. Tick"},
		{chooseImages, 1, 1, "1 image, 1 folder. Tick"},
		{chooseImages, 0, 1, "No images here (1 folder)."},
		{chooseImages, 0, 0, "No images here."},
		{chooseFolder, 0, 3, "3 folders. Open"},
		{chooseFolder, 0, 0, "No folders here."},
		{chooseSave, 2, 0, "2 images here."},
		{chooseSave, 0, 0, "This folder is empty."},
	} {
		fc := &fileChooser{what: c.what, items: items(c.files, c.dirs)}
		got := fc.summary()
		if !strings.HasPrefix(got, c.want) || strings.Contains(got, "(s)") {
			t.Errorf("%d images, %d folders (mode %d): %q, want it to start %q", c.files, c.dirs, c.what, got, c.want)
		}
	}
}

// Image files in the list show thumbnails, made through the app's thumbnail cache for the
// rows on screen only: a folder of 200 images is listed without decoding them all.
func TestChooserThumbnailsOnlyForVisibleRows(t *testing.T) {
	_, pictures := fakeHome(t)
	const n = 200
	for i := range n {
		writeTestPNG(t, pictures, fmt.Sprintf("p%03d.png", i), 16, 16, nil)
	}
	data := t.TempDir()
	h := newHarness(t, data, "", newFakeGen().open)
	c := h.ui.refs.showAdd()
	h.chooserLoaded(c)
	if len(c.items) != n {
		t.Fatalf("listed %d items", len(c.items))
	}
	h.settle()
	if c.thumbsAsked == 0 || c.thumbsAsked >= n/2 {
		t.Errorf("%d thumbnails asked for %d images, most of them not on screen", c.thumbsAsked, n)
	}
	// The first row's thumbnail arrives.
	var first *shell.ThumbImage
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *shell.ThumbImage:
			if first == nil && v.Key == c.items[0].key {
				first = v
			}
		case *fyne.Container:
			for _, o := range v.Objects {
				walk(o)
			}
		case fyne.Widget:
			for _, o := range test.WidgetRenderer(v).Objects() {
				walk(o)
			}
		}
	}
	walk(c.list)
	if first == nil {
		t.Fatal("the first row shows no thumbnail")
	}
	h.waitFor("the first thumbnail", 10*time.Second, func() bool { return first.Img.Image != nil })
	h.settle()
	des, _ := os.ReadDir(filepath.Join(data, "thumbs"))
	if len(des) >= n/2 {
		t.Errorf("%d thumbnails made for %d images", len(des), n)
	}
	if c.summary() != "200 images. Tick the images to add; you can tick images in several folders." {
		t.Errorf("summary %q", c.summary())
	}
}
