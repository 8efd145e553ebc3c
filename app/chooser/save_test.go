package chooser

import (
	"bytes"
	"io/fs"
	"kleinbild/app/internal/uitest"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// openSave opens a save chooser for a new image img-00.png, starting in start; saved
// collects the paths saved to. It returns the chooser (listed) and the image's path.
func (h *harness) openSave(start string, saved *[]string) (*Chooser, string) {
	h.t.Helper()
	src := writeTestPNG(h.t, h.t.TempDir(), "img-00.png", 32, 24)
	c := OpenSave(h.sh, "Save a copy", src, "img-00.png", startIn(start), func(p string) { *saved = append(*saved, p) })
	h.loaded(c)
	return c, src
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

// Issue 12 (defects 9 and 11): the save chooser shows the image's name to edit, a typed
// folder opens, Save writes the copy there (the format's extension added) and closes, and
// a typed full path saves at once. No "Getting favorite locations" line is logged (Fyne's
// dialog did).
func TestSaveIntoTypedFolder(t *testing.T) {
	home, pictures := uitest.FakeHome(t)
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	out := filepath.Join(home, "exports")
	os.MkdirAll(out, 0o755)
	h := newHarness(t, t.TempDir())
	var saved []string
	c, src := h.openSave(pictures, &saved)
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
	h.waitFor("the copy", func() bool { return len(saved) == 1 })
	if saved[0] != want || !sameBytes(t, src, want) {
		t.Errorf("saved %v: %s is not a copy of %s", saved, want, src)
	}
	if top := h.win.Canvas().Overlays().Top(); top != nil {
		t.Error("the chooser stays open after saving")
	}
	noTempFiles(t, out)

	// The saved image is listed for reference; a typed full path saves at once.
	saved = nil
	c2, src := h.openSave(out, &saved)
	if i := itemIndex(c2, "castle.png"); i < 0 {
		t.Errorf("the saved image is not listed for reference: %v", itemNames(c2))
	}
	typed := filepath.Join(home, "typed.png")
	c2.path.SetText("")
	test.Type(c2.path, typed)
	c2.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the typed copy", func() bool { return len(saved) == 1 })
	if saved[0] != typed || !sameBytes(t, src, typed) {
		t.Errorf("saved %v: %s is not a copy", saved, typed)
	}
	if strings.Contains(logged.String(), "favorite") {
		t.Errorf("logged: %s", logged.String())
	}
}

// Saving over an existing file asks first (Cancel keeps the file); folders, devices, the
// image itself and another format are refused with a reason, and the chooser stays open.
func TestSaveAsksBeforeReplacing(t *testing.T) {
	home, _ := uitest.FakeHome(t)
	out := filepath.Join(home, "out")
	os.MkdirAll(filepath.Join(out, "sub.png"), 0o755)
	old := writeTestPNG(t, out, "keep.png", 8, 8)
	oldBytes, _ := os.ReadFile(old)
	h := newHarness(t, t.TempDir())
	var saved []string
	c, src := h.openSave(home, &saved)
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
	h.waitFor("the question", func() bool { return uitest.FindButton(h.win.Canvas().Overlays().Top(), "Replace") != nil })
	h.TapDialogButton("Cancel")
	h.Settle()
	if got, _ := os.ReadFile(old); !bytes.Equal(got, oldBytes) {
		t.Error("the file was replaced although the user said Cancel")
	}
	if c.saving || c.ok.Disabled() || h.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("after Cancel: saving %v, Save disabled %v", c.saving, c.ok.Disabled())
	}

	test.Tap(c.ok)
	h.waitFor("the question", func() bool { return uitest.FindButton(h.win.Canvas().Overlays().Top(), "Replace") != nil })
	h.TapDialogButton("Replace")
	h.waitFor("the copy", func() bool { return len(saved) == 1 })
	if !sameBytes(t, src, old) {
		t.Error("the file was not replaced by the copy")
	}
	noTempFiles(t, out)

	c = OpenSave(h.sh, "Save a copy", src, "img-00.png", startIn(out), func(p string) { saved = append(saved, p) })
	h.loaded(c)
	refused := func(name, want string) {
		t.Helper()
		c.name.SetText(name)
		test.Tap(c.ok)
		h.waitFor("the save to end", func() bool { return !c.saving })
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
	if len(saved) != 1 {
		t.Errorf("saved %v", saved)
	}
}

// A folder Kleinbild may not write in gives a plain message; nothing is left there.
func TestSaveIntoReadOnlyFolder(t *testing.T) {
	home, _ := uitest.FakeHome(t)
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
	h := newHarness(t, t.TempDir())
	var saved []string
	c, _ := h.openSave(home, &saved)
	h.enterPath(c, ro)
	if c.dir != ro {
		t.Fatalf("chooser in %s (%q)", c.dir, c.msg.Text)
	}
	test.Tap(c.ok)
	h.waitFor("the save to end", func() bool { return !c.saving && c.msg.Text != "" && !strings.Contains(c.msg.Text, "here") })
	if !strings.Contains(c.msg.Text, "permission denied") || !strings.Contains(c.msg.Text, ro) {
		t.Errorf("message %q", c.msg.Text)
	}
	if _, err := os.Stat(filepath.Join(ro, "img-00.png")); err == nil {
		t.Error("a file was written")
	}
	noTempFiles(t, ro)
	if h.win.Canvas().Overlays().Top() == nil || c.ok.Disabled() || len(saved) != 0 {
		t.Error("the chooser closed or cannot try again")
	}
}

func errorsIsPermission(err error) bool {
	return err != nil && (os.IsPermission(err) || strings.Contains(err.Error(), fs.ErrPermission.Error()))
}
