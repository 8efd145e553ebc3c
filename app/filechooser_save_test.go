package app

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/widgets"
)

// typeEnter types text into the entry e and presses Enter.
func typeEnter(e *widgets.EscapeEntry, text string) {
	e.SetText("")
	test.Type(e, text)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

func sameBytes(t *testing.T, a, b string) bool {
	t.Helper()
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// Issue 12 (defects 9 and 11): "Save as…" uses Kleinbild's chooser: it opens in the
// pictures folder with the image's name to edit, Save writes the copy into a typed folder
// and says so, the folder is remembered for the next Save as… (also after a restart), and
// a typed full path saves at once. (The chooser itself is tested in package chooser.)
func TestSaveAsIntoTypedFolder(t *testing.T) {
	home, pictures := fakeHome(t)
	out := filepath.Join(home, "exports")
	os.MkdirAll(out, 0o755)
	data := t.TempDir()
	h := galleryHarness(t, data, "a red castle")
	u := h.ui
	u.gal.SelectEntry("img-00.png", nil)
	h.settle()
	src := u.Gallery.Path(u.view.Shown)
	b := findButton(u.view.Actions, "Save as…")
	if b == nil {
		t.Fatal("the viewer has no Save as… button")
	}
	test.Tap(b)
	top := h.win.Canvas().Overlays().Top()
	h.waitFor("the chooser in the pictures folder", 10*time.Second, func() bool { return findEscapeEntry(top, pictures) != nil })
	name := findEscapeEntry(top, "img-00.png")
	if name == nil || findButton(top, "Save") == nil {
		t.Fatal("the chooser has no name img-00.png to edit, or no Save")
	}
	typeEnter(findEscapeEntry(top, pictures), "~/exports")
	h.waitFor("the typed folder", 10*time.Second, func() bool { return findEscapeEntry(top, out) != nil })
	name.SetText("castle")
	test.Tap(findButton(top, "Save"))
	want := filepath.Join(out, "castle.png")
	h.waitFor("the copy", 10*time.Second, func() bool { return strings.Contains(u.Status.Text, "Saved a copy") })
	if !sameBytes(t, src, want) {
		t.Errorf("%s is not a copy of %s", want, src)
	}
	if top := h.win.Canvas().Overlays().Top(); top != nil {
		t.Error("the chooser stays open after saving")
	}
	if u.Settings.SaveDir != out {
		t.Errorf("remembered save folder %q, want %q", u.Settings.SaveDir, out)
	}

	// The next Save as… opens there; a typed full path saves at once.
	test.Tap(findButton(u.view.Actions, "Save as…"))
	top = h.win.Canvas().Overlays().Top()
	h.waitFor("the second chooser in "+out, 10*time.Second, func() bool { return findEscapeEntry(top, out) != nil })
	typed := filepath.Join(home, "typed.png")
	typeEnter(findEscapeEntry(top, out), typed)
	h.waitFor("the typed copy", 10*time.Second, func() bool { return strings.Contains(u.Status.Text, typed) })
	if !sameBytes(t, src, typed) {
		t.Errorf("%s is not a copy", typed)
	}

	// The folder is remembered across a restart.
	h.close()
	h2 := newHarness(t, data, "", newFakeGen().open)
	if h2.ui.Settings.SaveDir != home {
		t.Errorf("after a restart the save folder is %q, want %q", h2.ui.Settings.SaveDir, home)
	}
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
