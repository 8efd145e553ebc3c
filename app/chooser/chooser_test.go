package chooser

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/modelui"
	"kleinbild/app/shell"
)

// Images ticked in one trip, in two folders, are chosen in the order ticked; unticking
// and ticking again moves a file to the end. Only images and folders are listed.
func TestChooserTicksSeveralFiles(t *testing.T) {
	_, pictures := uitest.FakeHome(t)
	shots := filepath.Join(pictures, "shots")
	os.MkdirAll(filepath.Join(shots, "older"), 0o755)
	var want []string
	for _, n := range []string{"c.png", "a.png", "B.jpg"} {
		p := filepath.Join(shots, n)
		if n == "B.jpg" {
			p = writeTestPNG(t, shots, "B.png", 64, 64)
			os.Rename(p, filepath.Join(shots, n)) // a PNG under a .jpg name still decodes
			p = filepath.Join(shots, n)
		} else {
			writeTestPNG(t, shots, n, 96, 80)
		}
		want = append(want, p)
	}
	os.WriteFile(filepath.Join(shots, "notes.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(shots, ".hidden.png"), []byte("x"), 0o644)

	h := newHarness(t, t.TempDir())
	var got []string
	c := Open(h.sh, "Add reference images", Images(), startIn(pictures), func(p []string) { got = p })
	h.loaded(c)
	if c.dir != pictures {
		t.Fatalf("chooser opened in %s, want %s", c.dir, pictures)
	}
	c.list.Select(itemIndex(c, "shots"))
	h.loaded(c)
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
	if !slices.Equal(got, want) {
		t.Errorf("chose %v, want %v", got, want)
	}
	if h.win.Canvas().Overlays().Top() != nil || h.sh.Chooser != nil {
		t.Error("the chooser stays open")
	}
}

// A typed folder path opens the folder (relative to the one shown, or from ~); a typed
// image path chooses it; anything else says what is wrong.
func TestChooserTypedPath(t *testing.T) {
	home, pictures := uitest.FakeHome(t)
	sub := filepath.Join(home, "work", "refs")
	os.MkdirAll(sub, 0o755)
	img := writeTestPNG(t, sub, "cat.png", 96, 80)
	h := newHarness(t, t.TempDir())
	var got []string
	c := Open(h.sh, "Add reference images", Images(), startIn(pictures), func(p []string) { got = p })
	h.loaded(c)
	h.enterPath(c, "~/work")
	if c.dir != filepath.Join(home, "work") || itemIndex(c, "refs") < 0 {
		t.Fatalf("after typing ~/work: in %s with %v", c.dir, itemNames(c))
	}
	h.enterPath(c, "refs")
	if c.dir != sub || itemIndex(c, "cat.png") < 0 {
		t.Fatalf("after typing refs: in %s with %v", c.dir, itemNames(c))
	}
	h.enterPath(c, filepath.Join(home, "nothing-here"))
	if c.dir != sub || !strings.Contains(c.msg.Text, "no such file or folder") || c.path.Text != filepath.Join(home, "nothing-here") {
		t.Errorf("a missing path: in %s, message %q, path %q", c.dir, c.msg.Text, c.path.Text)
	}
	notes := filepath.Join(sub, "notes.txt")
	os.WriteFile(notes, []byte("x"), 0o644)
	h.enterPath(c, notes)
	if !strings.Contains(c.msg.Text, "not an image") || got != nil {
		t.Errorf("a text file: message %q, chose %v", c.msg.Text, got)
	}
	h.enterPath(c, img)
	if !slices.Equal(got, []string{img}) || h.win.Canvas().Overlays().Top() != nil {
		t.Errorf("chose %v; chooser still open: %v", got, h.win.Canvas().Overlays().Top() != nil)
	}
}

// A folder that cannot be read gives a message and keeps the folder shown.
func TestChooserUnreadableFolder(t *testing.T) {
	_, pictures := uitest.FakeHome(t)
	gone := filepath.Join(pictures, "gone")
	os.MkdirAll(gone, 0o755)
	h := newHarness(t, t.TempDir())
	c := Open(h.sh, "Add reference images", Images(), startIn(pictures), func([]string) {})
	h.loaded(c)
	os.Remove(gone)
	c.list.Select(itemIndex(c, "gone"))
	h.loaded(c)
	if c.dir != pictures || !strings.Contains(c.msg.Text, "cannot be read") {
		t.Errorf("in %s, message %q", c.dir, c.msg.Text)
	}
	if _, err := listDir(filepath.Join(pictures, "x.png"), true); err == nil {
		t.Error("listing a missing folder gave no error")
	}
}

// BrowseFolder opens beside the folder it starts from, or at home without one, lists
// folders only, and picks the folder shown.
func TestBrowseFolder(t *testing.T) {
	uitest.FakeHome(t)
	model := filepath.Join(t.TempDir(), "tiny-flux2-klein")
	os.MkdirAll(filepath.Join(model, "transformer"), 0o755)
	os.MkdirAll(filepath.Join(model, "vae"), 0o755)
	os.WriteFile(filepath.Join(model, "model_index.json"), []byte("{}"), 0o644)
	h := newHarness(t, t.TempDir())
	c := BrowseFolder(h.sh, "Choose", "", func(string) {})
	h.loaded(c)
	if c.dir != os.Getenv("HOME") {
		t.Errorf("without a start the folder chooser opens in %s, want home", c.dir)
	}
	var got string
	c = BrowseFolder(h.sh, "Choose", model, func(dir string) { got = dir })
	h.loaded(c)
	c.list.Select(itemIndex(c, filepath.Base(model)))
	h.loaded(c)
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

// Issue 20: the part files' chooser (weight-file mode) lists folders and GGUF/safetensors
// files only; tapping a file chooses it, and a typed path of one too.
func TestBrowseWeightFile(t *testing.T) {
	uitest.FakeHome(t)
	dm := filepath.Join(t.TempDir(), "diffusion_models")
	os.MkdirAll(filepath.Join(dm, "old"), 0o755)
	for _, n := range []string{"flux-2-klein-tiny-Q8_0-mix.gguf", "flux-2-klein-tiny.safetensors"} {
		os.WriteFile(filepath.Join(dm, n), []byte("weights"), 0o644)
	}
	writeTestPNG(t, dm, "preview.png", 4, 4)
	te := filepath.Join(t.TempDir(), "qwen3-tiny-Q8_0.gguf")
	os.WriteFile(te, []byte("weights"), 0o644)
	h := newHarness(t, t.TempDir())
	var got string
	c := BrowseWeightFile(h.sh, filepath.Join(dm, "flux-2-klein-tiny.safetensors"), modelui.IsWeightFile, func(p string) { got = p })
	h.loaded(c)
	if names := itemNames(c); c.dir != dm || !slices.Equal(names, []string{"old", "flux-2-klein-tiny-Q8_0-mix.gguf", "flux-2-klein-tiny.safetensors"}) {
		t.Fatalf("in %s: %q", c.dir, names)
	}
	if !strings.Contains(c.msg.Text, "2 model files") || !c.ok.Disabled() {
		t.Errorf("summary %q, confirm enabled %v", c.msg.Text, !c.ok.Disabled())
	}
	c.list.Select(itemIndex(c, "flux-2-klein-tiny-Q8_0-mix.gguf"))
	if got != filepath.Join(dm, "flux-2-klein-tiny-Q8_0-mix.gguf") {
		t.Errorf("chose %q", got)
	}
	// A typed path: a GGUF file is chosen, an image refused.
	got = ""
	c = BrowseWeightFile(h.sh, "", modelui.IsWeightFile, func(p string) { got = p })
	h.loaded(c)
	c.submit(filepath.Join(dm, "preview.png"))
	h.loaded(c)
	if got != "" || !strings.Contains(c.msg.Text, "not a GGUF or safetensors file") {
		t.Errorf("typed image: chose %q, message %q", got, c.msg.Text)
	}
	c.submit(te)
	h.loaded(c)
	if got != te {
		t.Errorf("typed GGUF file: chose %q", got)
	}
}

// The status line counts in words: "6 images", "1 folder", zero parts left out.
func TestChooserSummaryPlurals(t *testing.T) {
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
		what        mode
		files, dirs int
		want        string
	}{
		{pickFiles, 6, 0, "6 images. Tick"},
		{pickFiles, 1, 1, "1 image, 1 folder. Tick"},
		{pickFiles, 0, 1, "No images here (1 folder)."},
		{pickFiles, 0, 0, "No images here."},
		{pickFolder, 0, 3, "3 folders. Open"},
		{pickFolder, 0, 0, "No folders here."},
		{saveCopy, 2, 0, "2 images here."},
		{saveCopy, 0, 0, "This folder is empty."},
	} {
		fc := &Chooser{what: c.what, files: Images(), items: items(c.files, c.dirs)}
		got := fc.summary()
		if !strings.HasPrefix(got, c.want) || strings.Contains(got, "(s)") {
			t.Errorf("%d images, %d folders (mode %d): %q, want it to start %q", c.files, c.dirs, c.what, got, c.want)
		}
	}
}

// Image files in the list show thumbnails, made through the app's thumbnail cache for the
// rows on screen only: a folder of 200 images is listed without decoding them all.
func TestChooserThumbnailsOnlyForVisibleRows(t *testing.T) {
	_, pictures := uitest.FakeHome(t)
	const n = 200
	for i := range n {
		writeTestPNG(t, pictures, fmt.Sprintf("p%03d.png", i), 16, 16)
	}
	data := t.TempDir()
	h := newHarness(t, data)
	c := Open(h.sh, "Add reference images", Images(), startIn(pictures), func([]string) {})
	h.loaded(c)
	if len(c.items) != n {
		t.Fatalf("listed %d items", len(c.items))
	}
	h.Settle()
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
	h.waitFor("the first thumbnail", func() bool { return first.Img.Image != nil })
	h.Settle()
	des, _ := os.ReadDir(filepath.Join(data, "thumbs"))
	if len(des) >= n/2 {
		t.Errorf("%d thumbnails made for %d images", len(des), n)
	}
	if c.summary() != "200 images. Tick the images to add; you can tick images in several folders." {
		t.Errorf("summary %q", c.summary())
	}
}
