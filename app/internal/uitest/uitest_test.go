package uitest

import (
	"image"
	"os"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/maskedit"
	"kleinbild/app/widgets"
	"kleinbild/internal/testhome"
	"kleinbild/weights"
)

// TestMain runs the tests with a temporary home and XDG folders.
func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }

// TestFindersFindAndMiss: each finder finds its widget inside containers and widgets'
// renderers, and misses a text nothing shows.
func TestFindersFindAndMiss(t *testing.T) {
	test.NewTempApp(t)
	ok := widget.NewButton("OK", nil)
	tip := &widgets.TipButton{Tip: "Delete"}
	tip.Icon = theme.DeleteIcon()
	tip.ExtendBaseWidget(tip)
	check := widget.NewCheck("Remember the folder", nil)
	entry := widgets.NewEscapeEntry()
	entry.SetText("/home/pictures")
	rich := widget.NewRichTextWithText("the model is missing")
	label := widget.NewLabel("a label")
	list := widget.NewList(func() int { return 0 }, func() fyne.CanvasObject { return widget.NewLabel("") }, func(widget.ListItemID, fyne.CanvasObject) {})
	sel := widget.NewSelect([]string{"PNG"}, nil)
	root := container.NewVBox(label, container.NewVScroll(container.NewHBox(ok, tip, check, entry)), rich, list, sel)
	test.NewTempWindow(t, root)

	if FindButton(root, "OK") != ok || FindButton(root, "Delete") != &tip.Button {
		t.Error("FindButton misses a button or an icon button by its tooltip")
	}
	if FindButton(root, "Cancel") != nil || FindTipButton(root, "OK") != nil {
		t.Error("a finder finds a button nothing labels so")
	}
	if FindTipButton(root, "Delete") != tip || FindCheck(root, "Remember") != check || FindCheck(root, "Forget") != nil {
		t.Error("FindTipButton or FindCheck")
	}
	if FindEntry(root, "/home/pictures") != entry || FindEntry(root, "/home") != nil {
		t.Error("FindEntry")
	}
	if FindRichText(root, "missing") != rich || FindRichText(root, "present") != nil {
		t.Error("FindRichText")
	}
	if FindList(root) != list || FindSelect(root) != sel || FindList(label) != nil || FindSelect(ok) != nil {
		t.Error("FindList or FindSelect")
	}
	if got := LabelTexts(root); !slices.Contains(got, "a label") || !slices.Contains(got, "the model is missing") {
		t.Errorf("LabelTexts %q", got)
	}
	// A widget's renderer is searched: the button's label is a RichText in it.
	if FindRichText(ok, "OK") == nil {
		t.Error("FindRichText did not look into the button")
	}
}

// TestShownRectClipsToTheScroll: an object scrolled out of its scroll container is
// clipped to nothing, and RequireShown's check sees it; one in view is shown in full.
func TestShownRectClipsToTheScroll(t *testing.T) {
	test.NewTempApp(t)
	top := widget.NewButton("top", nil)
	bottom := widget.NewButton("bottom", nil)
	spacer := widget.NewLabel("")
	col := container.NewVBox(top, container.NewGridWrap(fyne.NewSize(10, 2000), spacer), bottom)
	w := test.NewTempWindow(t, container.NewVScroll(col))
	w.Resize(fyne.NewSize(300, 300))
	Relayout(w.Canvas().Content())
	if _, size, ok := ShownRect(w.Canvas().Content(), top); !ok || size.Height < top.Size().Height-0.5 {
		t.Errorf("the top button: size %v of %v, found %v", size, top.Size(), ok)
	}
	if _, size, ok := ShownRect(w.Canvas().Content(), bottom); !ok || size.Height > 0 {
		t.Errorf("the scrolled-out button: size %v, found %v", size, ok)
	}
	if _, _, ok := ShownRect(w.Canvas().Content(), widget.NewLabel("elsewhere")); ok {
		t.Error("an object not in the window is found")
	}
	RequireShown(t, w, "the top button", top)
}

// TestLoopRunsPostsUntilClosed: closures posted from other goroutines run on the loop
// while it waits, in order, also while Close waits for the shutdown; after that, none.
func TestLoopRunsPostsUntilClosed(t *testing.T) {
	l := NewLoop(t)
	var ran []int
	done := make(chan struct{})
	go func() {
		for i := range 3 {
			l.Post(func() { ran = append(ran, i) })
		}
		l.Post(func() { close(done) })
	}()
	l.Wait("the posts", done)
	if !slices.Equal(ran, []int{0, 1, 2}) {
		t.Errorf("ran %v", ran)
	}
	if !l.Close(func() {
		served := make(chan struct{})
		l.Post(func() { close(served) })
		<-served // only returns if the loop serves the post
	}) {
		t.Error("the first Close did nothing")
	}
	if l.Close(func() { t.Error("a second Close stops again") }) {
		t.Error("a second Close reports closing")
	}
	l.Post(func() { t.Error("a post after Close ran") })
	if l.Pump() {
		t.Error("the closed loop pumped")
	}
}

// TestShellOptions: the test shell has the services asked for, WhileAlive drops posts
// once its life has ended, and CloseShell closes the loop once.
func TestShellOptions(t *testing.T) {
	w := NewWindow(t)
	data := t.TempDir()
	bare := w.NewShell(data, ShellOptions{})
	if bare.Thumbs != nil || bare.Banner != nil || bare.Store.Path != "" || w.Banner != nil {
		t.Errorf("a bare shell has thumbnails %v, banner %v, settings %q", bare.Thumbs, bare.Banner, bare.Store.Path)
	}
	sh := w.NewShell(data, ShellOptions{Settings: true, Thumbs: true, Banner: true, WhileAlive: true})
	if sh.Thumbs == nil || sh.Banner == nil || sh.Status == nil || sh.Store.Path == "" || w.Banner == nil {
		t.Fatal("the shell lacks a service asked for")
	}
	n := 0
	sh.Post(func() { n++ })
	w.Settle()
	sh.End()
	sh.Post(func() { n++ })
	w.Settle()
	if n != 1 {
		t.Errorf("%d posts ran, want the one before End", n)
	}
	w.CloseShell(sh)
	w.CloseShell(sh) // a second call does nothing (the test driver closes a window once)
	w.Post(func() { t.Error("a post after CloseShell ran") })
	w.Settle()
}

// TestWriteLoRA: the copy holds the golden adapter's tensors, the extra tensor and the
// extra metadata.
func TestWriteLoRA(t *testing.T) {
	path := WriteLoRA(t, t.TempDir(), "x.safetensors", map[string]string{"modelspec.title": "X"}, "unknown.weight")
	f, err := weights.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	orig, err := weights.OpenFile(GoldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	if len(f.Names()) != len(orig.Names())+1 || !slices.Contains(f.Names(), "unknown.weight") || f.Metadata["modelspec.title"] != "X" {
		t.Errorf("tensors %v (golden %d), metadata %v", f.Names(), len(orig.Names()), f.Metadata)
	}
}

// TestPaintAt: the square painted is the brush's size around the point, and only it.
func TestPaintAt(t *testing.T) {
	test.NewTempApp(t)
	e := maskedit.New(image.NewNRGBA(image.Rect(0, 0, 64, 48)))
	test.NewTempWindow(t, e)
	e.Brush = 8
	PaintAt(e, image.Pt(20, 20))
	n := 0
	for _, v := range e.Mask().Pix {
		if v >= 128 {
			n++
		}
	}
	if n != 9*9 || e.Mask().GrayAt(20, 20).Y != 255 || e.Mask().GrayAt(30, 20).Y != 0 {
		t.Errorf("%d pixels painted, want 81 around (20, 20)", n)
	}
}

// UnnamedButtons finds a bare icon button (hidden too) and passes named ones; Escapers finds
// the Escape-aware entry inside a scroll.
func TestUnnamedButtonsAndEscapers(t *testing.T) {
	bare := widget.NewButtonWithIcon("", theme.CancelIcon(), nil)
	bare.Hide()
	named := widget.NewButton("Close", nil)
	got := UnnamedButtons(container.NewVBox(named, container.NewHBox(bare)))
	if len(got) != 1 || got[0] != bare {
		t.Errorf("UnnamedButtons = %v, want the bare button only", got)
	}
	e := widgets.NewEscapeEntry()
	if es := Escapers(container.NewVScroll(container.NewVBox(named, e))); len(es) != 1 || es[0] != fyne.Focusable(e) {
		t.Errorf("Escapers = %v, want the entry", es)
	}
}
