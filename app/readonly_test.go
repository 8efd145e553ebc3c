package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/app/gallery"
	"kleinbild/app/settings"
	"kleinbild/app/shell"
	"kleinbild/download"
)

// dataFiles reads the files of the data folder that a window writes: the gallery (PNGs and
// index), the trash and the settings.
func dataFiles(t *testing.T, data string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, sub := range []string{"gallery", "trash", "masks", "models"} {
		des, _ := os.ReadDir(filepath.Join(data, sub))
		for _, de := range des {
			raw, err := os.ReadFile(filepath.Join(data, sub, de.Name()))
			if err != nil && !de.IsDir() {
				t.Fatal(err)
			}
			out[sub+"/"+de.Name()] = string(raw)
		}
	}
	raw, err := os.ReadFile(filepath.Join(data, "settings.json"))
	if err == nil {
		out["settings.json"] = string(raw)
	}
	return out
}

// TestSecondWindowReadOnly: a second window on a data folder another window holds (issue 23
// item 9: two instances lost each other's gallery entries) opens read-only. It says so in the
// banner and shows the gallery, Generate is disabled, and each write is refused: generating
// (button, shortcut path, automation, inpainting), favourites, delete, settings, a download
// into the data folder. The gallery index and settings are byte for byte as they were, and
// the first window goes on saving; once it has closed, a new window owns the folder again.
func TestSecondWindowReadOnly(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h1 := newHarness(t, data, tinyModel(t), fake.open)
	if h1.ui.ReadOnly || h1.ui.ErrorText() != "" {
		t.Fatalf("first window: read-only %v, banner %q", h1.ui.ReadOnly, h1.ui.ErrorText())
	}
	if out := h1.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	e, _ := h1.ui.Gallery.At(0)
	if _, err := h1.ui.Gallery.SetFavourite(e.File, true); err != nil {
		t.Fatal(err)
	}
	h1.ui.ctl.FlushForm()
	h1.settle()
	before := dataFiles(t, data)
	if before["gallery/"+gallery.IndexName] == "" || before["settings.json"] == "" {
		t.Fatalf("first window saved no index or settings: %v", before)
	}

	fake2 := newFakeGen()
	h2 := newHarness(t, data, tinyModel(t), fake2.open)
	u := h2.ui
	if !u.ReadOnly || !u.Gallery.ReadOnly() {
		t.Fatal("the second window on a held data folder is not read-only")
	}
	if b := u.ErrorText(); !strings.Contains(b, "Another Kleinbild window is using this data folder") || !strings.Contains(b, "read-only") {
		t.Errorf("banner %q", b)
	}
	if !u.ctl.Generate.Disabled() {
		t.Error("Generate is enabled in a read-only window")
	}
	if u.Gallery.Len() != 1 {
		t.Errorf("read-only gallery shows %d images, want 1", u.Gallery.Len())
	}

	// Every way of writing is refused.
	u.Generate()
	h2.settle()
	if u.run.Current() != nil || !strings.Contains(u.ErrorText(), "read-only") {
		t.Errorf("Generate: running %v, banner %q", u.run.Current() != nil, u.ErrorText())
	}
	if _, err := u.run.StartGenerate(); !errors.Is(err, shell.ErrReadOnlyWindow) {
		t.Errorf("startGenerate: %v", err)
	}
	u.opts.AutoGenerate = true // as gui --generate does
	errc := make(chan error, 1)
	go func() { errc <- u.Automate() }()
	var autoErr error
	h2.waitFor("Automate", 20*time.Second, func() bool {
		select {
		case autoErr = <-errc:
			return true
		default:
			return false
		}
	})
	if autoErr == nil || !strings.Contains(autoErr.Error(), "read-only") {
		t.Errorf("Automate: %v", autoErr)
	}
	u.gal.ToggleFavourite(e)
	h2.settle()
	if !strings.Contains(u.ErrorText(), "read-only") {
		t.Errorf("favourite: banner %q", u.ErrorText())
	}
	u.gal.DeleteEntries([]gallery.Entry{e})
	h2.settle()
	if !strings.Contains(u.ErrorText(), "read-only") || u.Gallery.Len() != 1 {
		t.Errorf("delete: banner %q, %d images", u.ErrorText(), u.Gallery.Len())
	}
	u.ctl.Prompt.SetText("a different prompt")
	u.Settings.Width = 512
	u.Remember(u.Settings)
	u.ctl.FlushForm()
	h2.settle()
	u.StartDownload(download.Variants()[0], filepath.Join(data, "models", "x"), "")
	h2.settle()
	if !strings.Contains(u.ErrorText(), "ot downloading into") {
		t.Errorf("download: banner %q", u.ErrorText())
	}
	if n := len(fake2.opened()); n != 0 {
		t.Errorf("the read-only window opened the model %d times", n)
	}
	h2.close()

	after := dataFiles(t, data)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("the read-only window changed %s", k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("the read-only window created %s", k)
		}
	}

	// The first window still owns the folder and saves; after it, a new window owns it.
	if out := h1.generate("a second lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if h1.ui.Gallery.Len() != 2 {
		t.Errorf("first window: %d images after the second run", h1.ui.Gallery.Len())
	}
	h1.close()
	h3 := newHarness(t, data, tinyModel(t), newFakeGen().open)
	if h3.ui.ReadOnly || h3.ui.Gallery.Len() != 2 {
		t.Errorf("after the first window closed: read-only %v, %d images", h3.ui.ReadOnly, h3.ui.Gallery.Len())
	}
	if fav, _ := h3.ui.Gallery.ByFile(e.File); !fav.Favourite {
		t.Error("the favourite was lost")
	}
}

// TestLockFailureIsAnError: a data folder that cannot be locked for another reason than a
// second window (its lock is a folder) is an error, not a read-only window.
func TestLockFailureIsAnError(t *testing.T) {
	data := t.TempDir()
	if err := os.Mkdir(filepath.Join(data, settings.LockName), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ro, err := lockDataDir(data); err == nil || ro {
		t.Fatalf("lock on a folder: read-only %v, err %v", ro, err)
	}
}

// TestReadOnlyFolderOpensReadOnly: a data folder that cannot be written opens read-only with
// a banner saying why, instead of refusing to start (issue 30).
func TestReadOnlyFolderOpensReadOnly(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if settings.CheckWritable(dir) == nil {
		dir = "/sys" // root: permissions do not stop it, a read-only file system does
		if st, err := os.Stat(dir); err != nil || !st.IsDir() || settings.CheckWritable(dir) == nil {
			t.Skip("no read-only folder to test with")
		}
	}
	release, ro, err := lockDataDir(dir)
	if err != nil || !ro {
		t.Fatalf("read-only folder: read-only %v, err %v", ro, err)
	}
	release()
	if n := readOnlyNotice(dir); !strings.Contains(n, "cannot be written") {
		t.Errorf("notice %q", n)
	}
	if n := readOnlyNotice(t.TempDir()); !strings.Contains(n, "Another Kleinbild window") {
		t.Errorf("notice of a locked folder %q", n)
	}
}
