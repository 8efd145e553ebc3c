package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/gallery"
	"kleinbild/app/settings"
	"kleinbild/app/sysmem"
	"kleinbild/engine/imageio"
)

func TestGenerateSavesToGallery(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, tinyModel(t), fake.open)
	u := h.ui
	if !u.view.empty.Visible() || u.view.setup.Visible() {
		t.Fatal("with a model and no images the viewer should invite to generate")
	}
	h.ui.ctl.setSize(256, 192)

	out := h.generate("a red fox in the snow")
	if out.err != nil {
		t.Fatalf("generation failed: %v", out.err)
	}
	if got := fake.calls.Load(); got != 1 {
		t.Fatalf("generator called %d times, want 1", got)
	}
	req := fake.lastRequest()
	if req.Prompt != "a red fox in the snow" || req.WidthPx != 256 || req.HeightPx != 192 || req.Steps != 4 {
		t.Errorf("request = %+v", req)
	}
	shownSeed, err := strconv.ParseUint(u.ctl.seed.Text, 10, 64)
	if err != nil || shownSeed != req.Seed {
		t.Errorf("seed field %q, request seed %d", u.ctl.seed.Text, req.Seed)
	}
	if u.gallery.Len() != 1 {
		t.Fatalf("gallery has %d images, want 1", u.gallery.Len())
	}
	e, _ := u.gallery.At(0)
	if e.Meta.Prompt != req.Prompt || e.Meta.Seed != req.Seed || e.Meta.Width != 256 || e.Meta.Height != 192 {
		t.Errorf("gallery entry metadata = %+v", e.Meta)
	}
	meta, ok, err := imageio.ReadMetadata(u.gallery.Path(e))
	if err != nil || !ok || meta.Prompt != req.Prompt || meta.Seed != req.Seed || meta.Software != "kleinbild dev" || meta.Duration <= 0 {
		t.Errorf("PNG metadata = %+v, %v, %v", meta, ok, err)
	}
	if !u.view.shownOK || u.view.shown.File != e.File || u.view.image.Image == nil || !u.view.info.Visible() {
		t.Errorf("the result is not shown in the viewer")
	}
	if u.view.prompt.Text != req.Prompt || !strings.Contains(u.view.details.Text, "seed "+strconv.FormatUint(req.Seed, 10)) {
		t.Errorf("viewer shows %q / %q", u.view.prompt.Text, u.view.details.Text)
	}
	if u.gal.count.Text != "1 image" || u.gal.empty.Visible() {
		t.Errorf("gallery header %q", u.gal.count.Text)
	}
	if u.ctl.generate.Text != "Generate" || u.view.progress.Visible() {
		t.Errorf("the UI did not return to idle: button %q", u.ctl.generate.Text)
	}
	if txt := u.errorText(); txt != "" {
		t.Errorf("unexpected banner %q", txt)
	}

	// Ctrl+Enter in the prompt generates again; an unlocked seed changes.
	u.ctl.prompt.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl})
	if u.run.cur == nil {
		t.Fatal("Ctrl+Enter did not start a generation")
	}
	h.waitFor("the second run", 10*time.Second, func() bool { return u.run.cur == nil })
	if u.gallery.Len() != 2 {
		t.Fatalf("gallery has %d images after the second run", u.gallery.Len())
	}
	first, second := req.Seed, fake.lastRequest().Seed
	if first == second {
		t.Errorf("unlocked seed did not change between runs (%d)", first)
	}
	if newest, _ := u.gallery.At(0); newest.Meta.Seed != second || u.view.shown.File != newest.File {
		t.Errorf("newest entry seed %d (want %d), shown %s", newest.Meta.Seed, second, u.view.shown.File)
	}

	// A locked seed is kept.
	test.Tap(u.ctl.lock)
	if !u.ctl.seedLocked {
		t.Fatal("lock button did not lock the seed")
	}
	h.generate("a red fox in the snow")
	if got := fake.lastRequest().Seed; got != second {
		t.Errorf("locked seed: got %d, want %d", got, second)
	}
	// The dice picks a new one, still locked.
	test.Tap(u.ctl.dice)
	if u.ctl.seed.Text == strconv.FormatUint(second, 10) {
		t.Errorf("dice kept the seed")
	}

	// Settings are remembered.
	h.settle()
	raw, err := os.ReadFile(filepath.Join(data, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s settings.Settings
	if err := json.Unmarshal(raw, &s); err != nil || s.Prompt != "a red fox in the snow" || s.Width != 256 || !s.SeedLocked {
		t.Errorf("settings.json = %s (%v)", raw, err)
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	test.Type(u.ctl.prompt, "a slow painting")
	test.Tap(u.ctl.generate)
	select {
	case <-fake.started:
	case <-time.After(5 * time.Second):
		t.Fatal("generator was not called")
	}
	h.waitFor("progress", 5*time.Second, func() bool { return strings.HasPrefix(u.view.progressText.Text, "Step 1 of 4") })
	if u.ctl.generate.Text != "Cancel" || !u.view.progress.Visible() {
		t.Fatalf("while running: button %q, progress visible %v", u.ctl.generate.Text, u.view.progress.Visible())
	}
	start := time.Now()
	test.Tap(u.ctl.generate) // now "Cancel"
	h.waitFor("the run to stop", time.Second, func() bool { return u.run.cur == nil })
	t.Logf("cancelled in %v", time.Since(start))
	if u.gallery.Len() != 0 {
		t.Errorf("a cancelled run added %d images", u.gallery.Len())
	}
	if u.errorText() != "" || !strings.Contains(u.status.Text, "cancelled") {
		t.Errorf("banner %q, status %q", u.errorText(), u.status.Text)
	}
	if u.ctl.generate.Text != "Generate" || u.view.progress.Visible() {
		t.Errorf("after cancel: button %q", u.ctl.generate.Text)
	}
}

func TestInvalidSettingsAreRefused(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	test.Type(u.ctl.prompt, "anything")
	cases := []struct{ w, h, want string }{
		{"500", "512", "multiple of 16: try 496 or 512"},
		{"512", "2048", "between 64 and 1792"},
		{"32", "512", "between 64 and 1792"},
		{"abc", "512", "not a whole number"},
		{"", "512", "empty"},
	}
	for _, c := range cases {
		u.ctl.width.SetText(c.w)
		u.ctl.height.SetText(c.h)
		if !u.ctl.sizeErr.Visible() || !strings.Contains(u.ctl.sizeErr.Text, c.want) {
			t.Errorf("%s×%s: inline message %q (visible %v), want %q", c.w, c.h, u.ctl.sizeErr.Text, u.ctl.sizeErr.Visible(), c.want)
		}
		test.Tap(u.ctl.generate)
		if u.run.cur != nil {
			t.Fatalf("%s×%s: generation started", c.w, c.h)
		}
	}
	u.ctl.width.SetText("768")
	u.ctl.height.SetText("1024")
	if u.ctl.sizeErr.Visible() || u.ctl.preset.Selected != "Portrait 3:4 · 768 × 1024" {
		t.Errorf("valid size: message %q, preset %q", u.ctl.sizeErr.Text, u.ctl.preset.Selected)
	}
	u.ctl.preset.SetSelected("Landscape 16:9 · 1024 × 576")
	if u.ctl.width.Text != "1024" || u.ctl.height.Text != "576" {
		t.Errorf("preset set %s×%s", u.ctl.width.Text, u.ctl.height.Text)
	}
	u.ctl.steps.SetText("0")
	test.Tap(u.ctl.generate)
	if u.run.cur != nil || !u.ctl.stepsErr.Visible() {
		t.Errorf("steps 0 accepted")
	}
	u.ctl.steps.SetText("4")
	u.ctl.seed.SetText("-3")
	test.Tap(u.ctl.generate)
	if u.run.cur != nil || !u.ctl.seedErr.Visible() {
		t.Errorf("seed -3 accepted")
	}
	u.ctl.seed.SetText("")
	u.ctl.prompt.SetText("  ")
	test.Tap(u.ctl.generate)
	if u.run.cur != nil || !u.ctl.promptErr.Visible() {
		t.Errorf("empty prompt accepted")
	}
	if fake.calls.Load() != 0 {
		t.Errorf("generator called %d times", fake.calls.Load())
	}
	if u.errorText() != "" {
		t.Errorf("field errors belong inline, banner shows %q", u.errorText())
	}
}

func TestDropAddsReferences(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	dir := t.TempDir()
	a := writeTestPNG(t, dir, "a.png", 96, 80, nil)
	b := writeTestPNG(t, dir, "b.png", 64, 64, nil)
	h.drop([]fyne.URI{storage.NewFileURI(a), storage.NewFileURI(b)})
	if len(u.refs.paths) != 2 || u.refs.paths[0] != a || u.refs.paths[1] != b {
		t.Fatalf("refs = %v", u.refs.paths)
	}
	if len(u.refs.grid.Objects) != 2 || u.refs.hint.Visible() {
		t.Errorf("%d reference thumbnails shown", len(u.refs.grid.Objects))
	}
	h.waitFor("reference thumbnails", 5*time.Second, func() bool {
		for _, o := range u.refs.grid.Objects {
			if o.(*fyne.Container).Objects[0].(*thumbImage).img.Image == nil {
				return false
			}
		}
		return true
	})
	// Remove the second one with its button.
	test.Tap(findButton(u.refs.grid.Objects[1], ""))
	if len(u.refs.paths) != 1 || u.refs.paths[0] != a {
		t.Fatalf("after remove: refs = %v", u.refs.paths)
	}
	// Not an image, and too small.
	txt := filepath.Join(dir, "notes.txt")
	os.WriteFile(txt, []byte("hello"), 0o644)
	h.drop([]fyne.URI{storage.NewFileURI(txt)})
	if !strings.Contains(u.errorText(), "Cannot use notes.txt as a reference: it is not an image") {
		t.Errorf("banner after dropping text: %q", u.errorText())
	}
	tiny := writeTestPNG(t, dir, "tiny.png", 8, 8, nil)
	h.drop([]fyne.URI{storage.NewFileURI(tiny)})
	if !strings.Contains(u.errorText(), "too small") || len(u.refs.paths) != 1 {
		t.Errorf("banner after dropping a tiny image: %q (refs %v)", u.errorText(), u.refs.paths)
	}

	// The reference reaches the engine and its hash the metadata.
	out := h.generate("make it blue")
	if out.err != nil {
		t.Fatal(out.err)
	}
	if got := fake.lastRequest().References; len(got) != 1 || got[0] != a {
		t.Errorf("request references %v", got)
	}
	sum, _ := imageio.SHA256File(a)
	if refs := out.entry.Meta.References; len(refs) != 1 || refs[0].Path != a || refs[0].SHA256 != sum {
		t.Errorf("metadata references %+v", refs)
	}
}

func TestDropKleinbildPNGOffersRestore(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	dir := t.TempDir()
	ref := writeTestPNG(t, dir, "ref.png", 64, 64, nil)
	p := writeTestPNG(t, dir, "castle.png", 80, 64, &imageio.Metadata{
		Prompt: "a castle on a hill", Seed: 1234, Width: 768, Height: 512, Steps: 3, Schedule: "linear",
		References: []imageio.Reference{{Path: ref}, {Path: filepath.Join(dir, "gone.png")}},
	})

	h.drop([]fyne.URI{storage.NewFileURI(p)})
	if len(u.refs.paths) != 0 {
		t.Fatalf("a Kleinbild PNG was added without asking")
	}
	h.tapDialogButton("Restore settings")
	c := u.ctl
	if c.prompt.Text != "a castle on a hill" || c.width.Text != "768" || c.height.Text != "512" ||
		c.steps.Text != "3" || c.seed.Text != "1234" || !c.seedLocked || c.schedule.Selected != "Linear" {
		t.Errorf("restored: prompt %q, %s×%s, steps %s, seed %s (locked %v), schedule %q",
			c.prompt.Text, c.width.Text, c.height.Text, c.steps.Text, c.seed.Text, c.seedLocked, c.schedule.Selected)
	}
	if len(u.refs.paths) != 1 || u.refs.paths[0] != ref {
		t.Errorf("restored references %v", u.refs.paths)
	}
	if !strings.Contains(u.errorText(), "gone.png") {
		t.Errorf("missing reference not reported: %q", u.errorText())
	}

	h.drop([]fyne.URI{storage.NewFileURI(p)})
	h.tapDialogButton("Use as reference")
	if len(u.refs.paths) != 2 || u.refs.paths[1] != p {
		t.Errorf("after 'Use as reference': refs %v", u.refs.paths)
	}
}

func TestGallerySurvivesRestartAndShowsLineage(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h1 := newHarness(t, data, tinyModel(t), fake.open)
	first := h1.generate("an old lighthouse")
	if first.err != nil {
		t.Fatal(first.err)
	}
	h1.close()

	h2 := newHarness(t, data, tinyModel(t), fake.open)
	u := h2.ui
	if u.gallery.Len() != 1 || len(u.gal.visible) != 1 {
		t.Fatalf("after restart the gallery has %d images", u.gallery.Len())
	}
	e, _ := u.gallery.At(0)
	if e.Meta.Prompt != "an old lighthouse" || e.Meta.Seed != first.entry.Meta.Seed || e.SHA256 != first.entry.SHA256 {
		t.Errorf("restored entry %+v", e)
	}
	if u.gal.empty.Visible() {
		t.Error("gallery still shows its empty hint")
	}

	// Select it in the grid; use it as a reference; the new image is its child.
	u.gal.grid.Select(0)
	if !u.view.shownOK || u.view.shown.File != e.File {
		t.Fatal("selecting a gallery cell did not show it")
	}
	h2.waitFor("the full image", 5*time.Second, func() bool { return u.view.image.Image != nil })
	test.Tap(findButton(u.view.info, "Use as reference"))
	if len(u.refs.paths) != 1 || u.refs.paths[0] != u.gallery.Path(e) {
		t.Fatalf("refs %v", u.refs.paths)
	}
	child := h2.generate("the lighthouse at night")
	if child.err != nil {
		t.Fatal(child.err)
	}
	if ps := u.gallery.Parents(child.entry); len(ps) != 1 || ps[0].File != e.File {
		t.Errorf("parents of the new image: %+v", ps)
	}
	if cs := u.gallery.Children(e); len(cs) != 1 || cs[0].File != child.entry.File {
		t.Errorf("children of the first image: %+v", cs)
	}
	if len(u.view.lineage.Objects) != 2 || !u.view.lineage.Visible() { // "Made from" + one thumbnail
		t.Errorf("lineage row has %d objects", len(u.view.lineage.Objects))
	}

	// Reuse settings from the first image.
	u.gal.selectEntry(e.File, nil)
	test.Tap(findButton(u.view.info, "Reuse settings"))
	if u.ctl.prompt.Text != "an old lighthouse" || u.ctl.seed.Text != strconv.FormatUint(e.Meta.Seed, 10) || !u.ctl.seedLocked {
		t.Errorf("reuse settings: prompt %q seed %q", u.ctl.prompt.Text, u.ctl.seed.Text)
	}
}

func TestCorruptIndexIsRebuilt(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h1 := newHarness(t, data, tinyModel(t), fake.open)
	h1.generate("one")
	h1.generate("two")
	h1.close()

	index := filepath.Join(data, "gallery", gallery.IndexName)
	for _, damage := range []func(){
		func() { os.WriteFile(index, []byte(`{"version":1,"entries":[{"file":`), 0o644) },
		func() { os.Remove(index) },
		func() {
			os.WriteFile(index, []byte(`{"version":1,"entries":[{"file":"ghost.png","sha256":"x"}]}`), 0o644)
		},
	} {
		damage()
		h := newHarness(t, data, tinyModel(t), fake.open)
		u := h.ui
		if u.gallery.Len() != 2 {
			t.Fatalf("rebuilt gallery has %d images, want 2", u.gallery.Len())
		}
		a, _ := u.gallery.At(0)
		b, _ := u.gallery.At(1)
		if a.Meta.Prompt != "two" || b.Meta.Prompt != "one" || a.SHA256 == "" {
			t.Errorf("rebuilt entries: %q, %q", a.Meta.Prompt, b.Meta.Prompt)
		}
		raw, err := os.ReadFile(index)
		var idx struct{ Entries []json.RawMessage }
		if err != nil || json.Unmarshal(raw, &idx) != nil || len(idx.Entries) != 2 {
			t.Errorf("index not rewritten: %v %s", err, raw)
		}
		h.close()
	}
}

func TestModelSetup(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, "", fake.open)
	u := h.ui
	if !u.view.setup.Visible() || u.view.empty.Visible() {
		t.Fatal("without a model the setup guide should show")
	}
	if !strings.Contains(u.model.button.Text, "No model") {
		t.Errorf("model button %q", u.model.button.Text)
	}
	test.Type(u.ctl.prompt, "x")
	test.Tap(u.ctl.generate)
	if u.run.cur != nil || h.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Generate without a model should open the model dialog")
	}
	h.tapDialogButton("Close")

	// An incomplete folder is refused with the missing files named.
	partial := t.TempDir()
	os.WriteFile(filepath.Join(partial, "model_index.json"), []byte(`{"_class_name":"Flux2KleinPipeline","is_distilled":true}`), 0o644)
	err := u.SetModelDir(partial, true)
	if err == nil || !strings.Contains(u.errorText(), "transformer/diffusion_pytorch_model.safetensors") {
		t.Errorf("incomplete folder: %v, banner %q", err, u.errorText())
	}
	if !u.view.setup.Visible() {
		t.Error("setup guide hidden for an unusable model")
	}
	md := modelReport(u.model.info, u.model.err, sysmem.Status{})
	if !strings.Contains(md, "Missing") || !strings.Contains(md, "`vae/config.json`") {
		t.Errorf("model report %q", md)
	}

	if err := u.SetModelDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(u.model.button.Text, "distilled") || u.ctl.steps.Text != "4" || u.ctl.guidanceBox.Visible() {
		t.Errorf("model button %q, steps %q, guidance visible %v", u.model.button.Text, u.ctl.steps.Text, u.ctl.guidanceBox.Visible())
	}
	if !u.view.empty.Visible() || u.view.setup.Visible() {
		t.Error("setup guide still shown with a usable model")
	}
	md = modelReport(u.model.info, nil, sysmem.Status{Bytes: 1000, Known: true})
	if !strings.Contains(md, "distilled") || !strings.Contains(md, "larger than the memory available") {
		t.Errorf("model report %q", md)
	}
	h.settle()
	h.close()

	// The folder is remembered.
	h2 := newHarness(t, data, "", fake.open)
	if h2.ui.model.dir != tinyModel(t) || h2.ui.model.err != nil {
		t.Errorf("remembered model %q (%v)", h2.ui.model.dir, h2.ui.model.err)
	}
}

func TestAutomateTakesScreenshot(t *testing.T) {
	fake := newFakeGen()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	w.Resize(fyne.NewSize(1280, 860))
	h := &harness{t: t, win: w}
	shot := filepath.Join(t.TempDir(), "shot.png")
	u, err := newUI(a, w, Options{DataDir: t.TempDir(), ModelDir: tinyModel(t), Prompt: "a lighthouse",
		AutoGenerate: true, ScreenshotPath: shot, Open: fake.open, calibrate: fakeCalibrate, devices: fakeDevices}, h.post)
	if err != nil {
		t.Fatal(err)
	}
	h.ui = u
	t.Cleanup(h.close)
	errc := make(chan error, 1)
	go func() { errc <- u.Automate() }()
	var autoErr error
	done := false
	h.waitFor("Automate", 20*time.Second, func() bool {
		select {
		case autoErr = <-errc:
			done = true
		default:
		}
		return done
	})
	if autoErr != nil {
		t.Fatal(autoErr)
	}
	if u.gallery.Len() != 1 || fake.lastRequest().Prompt != "a lighthouse" {
		t.Errorf("automatic run: %d images, prompt %q", u.gallery.Len(), fake.lastRequest().Prompt)
	}
	w2, h2, err := imageSize(shot)
	if err != nil || w2 < 100 || h2 < 100 {
		t.Errorf("screenshot %dx%d: %v", w2, h2, err)
	}
}
