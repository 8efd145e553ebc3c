package app

import (
	"context"
	"encoding/json"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/settings"
	"kleinbild/app/thumbcache"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// blockAtSeed is a fakeGen that, for the request with seed block, reports progress and then
// waits until it is cancelled.
type blockAtSeed struct {
	*fakeGen
	block uint64
}

func (b *blockAtSeed) open(_, device string) (Generator, error) {
	_, _ = b.fakeGen.open("", device)
	return b, nil
}

func (b *blockAtSeed) Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error) {
	if req.Seed != b.block {
		return b.fakeGen.Generate(ctx, req, progress)
	}
	b.mu.Lock()
	b.reqs = append(b.reqs, req)
	b.mu.Unlock()
	progress(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4})
	b.started <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

// lockSeed puts seed in the seed field, locked.
func lockSeed(u *UI, seed uint64) { u.ReuseSeed(seed) }

// gallerySeeds returns the seeds in the gallery's PNG files, oldest first.
func gallerySeeds(t *testing.T, u *UI) []uint64 {
	t.Helper()
	var seeds []uint64
	for i := u.Gallery.Len() - 1; i >= 0; i-- {
		e, _ := u.Gallery.At(i)
		m, ok, err := imageio.ReadMetadata(u.Gallery.Path(e))
		if err != nil || !ok {
			t.Fatalf("%s: metadata %v %v", e.File, ok, err)
		}
		seeds = append(seeds, m.Seed)
	}
	return seeds
}

// Issue 12: several images per run, seeds s, s+1, …, each saved with its own seed, then
// shown as a grid to pick from.
func TestBatchSavesEachImageWithItsSeed(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	lockSeed(u, 100)
	u.ctl.SetCount(3)
	out := h.generate("three foxes")
	if out.Err != nil || len(out.Entries) != 3 {
		t.Fatalf("outcome %v, %d entries", out.Err, len(out.Entries))
	}
	if got := gallerySeeds(t, u); len(got) != 3 || got[0] != 100 || got[1] != 101 || got[2] != 102 {
		t.Errorf("gallery seeds %v, want [100 101 102]", got)
	}
	if fake.calls.Load() != 3 {
		t.Errorf("generator called %d times", fake.calls.Load())
	}
	if !u.run.Batch.Box.Visible() || len(u.run.Batch.Tiles) != 3 {
		t.Fatalf("batch grid visible %v with %d tiles, want 3", u.run.Batch.Box.Visible(), len(u.run.Batch.Tiles))
	}
	for i, f := range u.run.Batch.Files {
		if f != out.Entries[i].File {
			t.Errorf("tile %d shows %s, want %s", i, f, out.Entries[i].File)
		}
	}
	if u.view.Shown.File != out.Entries[0].File {
		t.Errorf("viewer shows %s, want the first of the run %s", u.view.Shown.File, out.Entries[0].File)
	}
	test.Tap(u.run.Batch.Tiles[2])
	if u.view.Shown.File != out.Entries[2].File || u.view.Shown.Meta.Seed != 102 {
		t.Errorf("after tapping the third tile the viewer shows %s (seed %d)", u.view.Shown.File, u.view.Shown.Meta.Seed)
	}
	if u.run.Batch.Marks[2].StrokeColor == color.Transparent || u.run.Batch.Marks[0].StrokeColor != color.Transparent {
		t.Error("the outline does not mark the tile shown")
	}
	if !strings.Contains(u.Status.Text, "3 images") {
		t.Errorf("status %q", u.Status.Text)
	}

	// A run of one image hides the grid again.
	u.ctl.SetCount(1)
	h.generate("one fox")
	if u.run.Batch.Box.Visible() {
		t.Error("the grid of the last run stays after a single-image run")
	}
}

// Issue 12: an unlocked seed gives a random first seed, the rest follow it.
func TestBatchRandomSeedsFollowOn(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetCount(2)
	h.generate("two foxes")
	got := gallerySeeds(t, u)
	if len(got) != 2 || got[1] != got[0]+1 {
		t.Errorf("seeds %v, want s, s+1", got)
	}
	// The field stays random (empty); its placeholder names the first seed used.
	if u.ctl.Seed.Text != "" || !strings.Contains(u.ctl.Seed.PlaceHolder, strconv.FormatUint(got[0], 10)) {
		t.Errorf("seed field %q (placeholder %q), first seed %d", u.ctl.Seed.Text, u.ctl.Seed.PlaceHolder, got[0])
	}
}

// Issue 12: progress names the image of the run, and Cancel stops the whole run while the
// finished images stay.
func TestBatchCancelKeepsFinished(t *testing.T) {
	fake := &blockAtSeed{fakeGen: newFakeGen(), block: 201}
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	lockSeed(u, 200)
	u.ctl.SetCount(4)
	test.Type(u.ctl.Prompt, "four foxes")
	test.Tap(u.ctl.Generate)
	if u.run.Current() == nil {
		t.Fatal("the run did not start")
	}
	h.waitFor("the second image", 5*time.Second, func() bool {
		return strings.HasPrefix(u.view.ProgressText.Text, "Image 2 of 4 · Step 1 of 4")
	})
	if u.Gallery.Len() != 1 || !u.run.Batch.Box.Visible() || len(u.run.Batch.Tiles) != 1 {
		t.Errorf("while the second image runs: gallery %d, grid visible %v with %d tiles", u.Gallery.Len(), u.run.Batch.Box.Visible(), len(u.run.Batch.Tiles))
	}
	test.Tap(u.ctl.Generate) // Cancel
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
	h.settle()
	if got := gallerySeeds(t, u); len(got) != 1 || got[0] != 200 {
		t.Errorf("gallery seeds %v after cancel, want [200]", got)
	}
	fake.mu.Lock()
	started := len(fake.reqs)
	fake.mu.Unlock()
	if started != 2 {
		t.Errorf("%d images were started, want 2 (the rest cancelled)", started)
	}
	if !strings.Contains(u.Status.Text, "Cancelled after 1 of 4") || u.ErrorText() != "" {
		t.Errorf("status %q, banner %q", u.Status.Text, u.ErrorText())
	}
	if !u.view.ShownOK || u.view.Shown.Meta.Seed != 200 || !u.run.Batch.Box.Visible() || len(u.run.Batch.Tiles) != 1 {
		t.Errorf("after cancel the viewer shows %v seed %d, grid %v", u.view.ShownOK, u.view.Shown.Meta.Seed, len(u.run.Batch.Tiles))
	}
	if u.ctl.Generate.Text != "Generate" {
		t.Errorf("button %q after cancel", u.ctl.Generate.Text)
	}
}

// Issue 12, defect 11: the GUI writes its metadata with engine.Metadata, as the command
// line does: absolute reference paths, UTC time and the version. (Before, the GUI built it
// by hand: the reference path as given, local time and "Kleinbild" with no version.)
func TestGUIMetadataMatchesCLI(t *testing.T) {
	fake := newFakeGen()
	dir := t.TempDir()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.run.Version = "9.8.7"
	writeTestPNG(t, dir, "ref.png", 64, 64, nil) // the smallest reference the engine takes
	t.Chdir(dir)
	if err := u.refs.Add("ref.png"); err != nil { // a relative path, as a typed one can be
		t.Fatal(err)
	}
	out := h.generate("a fox with a reference")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if loc := out.Entry.Meta.Created.Location(); loc != time.UTC {
		t.Errorf("creation time is in %v, want UTC", loc)
	}
	m, ok, err := imageio.ReadMetadata(u.Gallery.Path(out.Entry))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := filepath.Join(dir, "ref.png")
	if len(m.References) != 1 || m.References[0] != want {
		t.Errorf("references %+v, want the absolute path %s", m.References, want)
	}
	if m.Software != "kleinbild 9.8.7" {
		t.Errorf("software %q, want %q", m.Software, "kleinbild 9.8.7")
	}
	if m.Created.Location() != time.UTC || m.Created.IsZero() {
		t.Errorf("stored time %v", m.Created)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
}

// Issue 12: the images-per-run setting is remembered like the other form fields.
func TestCountIsRemembered(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, tinyModel(t), fake.open)
	h.ui.ctl.SetCount(5)
	h.settle()
	h.close()
	h2 := newHarness(t, data, tinyModel(t), fake.open)
	if f, _ := h2.ui.ctl.ReadForm(); f.Count != 5 {
		t.Errorf("after restart the count is %d, want 5", f.Count)
	}
}

func TestGenerateSavesToGallery(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, tinyModel(t), fake.open)
	u := h.ui
	if !u.view.Empty.Visible() || u.view.Setup.Visible() {
		t.Fatal("with a model and no images the viewer should invite to generate")
	}
	h.ui.ctl.SetSize(256, 192)

	out := h.generate("a red fox in the snow")
	if out.Err != nil {
		t.Fatalf("generation failed: %v", out.Err)
	}
	if got := fake.calls.Load(); got != 1 {
		t.Fatalf("generator called %d times, want 1", got)
	}
	req := fake.lastRequest()
	if req.Prompt != "a red fox in the snow" || req.Width != 256 || req.Height != 192 || req.Steps != 4 {
		t.Errorf("request = %+v", req)
	}
	// The field stays random; the seed used shows in it.
	if u.ctl.Seed.Text != "" || !strings.HasSuffix(u.ctl.Seed.PlaceHolder, " "+strconv.FormatUint(req.Seed, 10)) {
		t.Errorf("seed field %q (placeholder %q), request seed %d", u.ctl.Seed.Text, u.ctl.Seed.PlaceHolder, req.Seed)
	}
	if u.Gallery.Len() != 1 {
		t.Fatalf("gallery has %d images, want 1", u.Gallery.Len())
	}
	e, _ := u.Gallery.At(0)
	if e.Meta.Prompt != req.Prompt || e.Meta.Seed != req.Seed || e.Meta.Width != 256 || e.Meta.Height != 192 {
		t.Errorf("gallery entry metadata = %+v", e.Meta)
	}
	meta, ok, err := imageio.ReadMetadata(u.Gallery.Path(e))
	if err != nil || !ok || meta.Prompt != req.Prompt || meta.Seed != req.Seed || meta.Software != "kleinbild dev" || meta.Duration <= 0 {
		t.Errorf("PNG metadata = %+v, %v, %v", meta, ok, err)
	}
	if !u.view.ShownOK || u.view.Shown.File != e.File || u.view.Image.Image == nil || !u.view.Info.Visible() {
		t.Errorf("the result is not shown in the viewer")
	}
	if u.view.Prompt.Text != req.Prompt || !strings.Contains(u.view.Details.Text, "seed "+strconv.FormatUint(req.Seed, 10)) {
		t.Errorf("viewer shows %q / %q", u.view.Prompt.Text, u.view.Details.Text)
	}
	if u.gal.Count.Text != "1 image" || u.gal.Empty.Visible() {
		t.Errorf("gallery header %q", u.gal.Count.Text)
	}
	if u.ctl.Generate.Text != "Generate" || u.view.Progress.Visible() {
		t.Errorf("the UI did not return to idle: button %q", u.ctl.Generate.Text)
	}
	if txt := u.ErrorText(); txt != "" {
		t.Errorf("unexpected banner %q", txt)
	}

	// Ctrl+Enter in the prompt generates again; an unlocked seed changes.
	u.ctl.Prompt.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl})
	if u.run.Current() == nil {
		t.Fatal("Ctrl+Enter did not start a generation")
	}
	h.waitFor("the second run", 10*time.Second, func() bool { return u.run.Current() == nil })
	if u.Gallery.Len() != 2 {
		t.Fatalf("gallery has %d images after the second run", u.Gallery.Len())
	}
	first, second := req.Seed, fake.lastRequest().Seed
	if first == second {
		t.Errorf("unlocked seed did not change between runs (%d)", first)
	}
	if newest, _ := u.Gallery.At(0); newest.Meta.Seed != second || u.view.Shown.File != newest.File {
		t.Errorf("newest entry seed %d (want %d), shown %s", newest.Meta.Seed, second, u.view.Shown.File)
	}

	// A locked seed is kept (the lock button and the dice are app/form's
	// TestSeedFieldAndLock).
	lockSeed(u, second)
	h.generate("a red fox in the snow")
	if got := fake.lastRequest().Seed; got != second {
		t.Errorf("locked seed: got %d, want %d", got, second)
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
	test.Type(u.ctl.Prompt, "a slow painting")
	test.Tap(u.ctl.Generate)
	select {
	case <-fake.started:
	case <-time.After(5 * time.Second):
		t.Fatal("generator was not called")
	}
	h.waitFor("progress", 5*time.Second, func() bool { return strings.HasPrefix(u.view.ProgressText.Text, "Step 1 of 4") })
	if u.ctl.Generate.Text != "Cancel" || !u.view.Progress.Visible() {
		t.Fatalf("while running: button %q, progress visible %v", u.ctl.Generate.Text, u.view.Progress.Visible())
	}
	start := time.Now()
	test.Tap(u.ctl.Generate) // now "Cancel"
	h.waitFor("the run to stop", time.Second, func() bool { return u.run.Current() == nil })
	t.Logf("cancelled in %v", time.Since(start))
	if u.Gallery.Len() != 0 {
		t.Errorf("a cancelled run added %d images", u.Gallery.Len())
	}
	if u.ErrorText() != "" || !strings.Contains(u.Status.Text, "cancelled") {
		t.Errorf("banner %q, status %q", u.ErrorText(), u.Status.Text)
	}
	if u.ctl.Generate.Text != "Generate" || u.view.Progress.Visible() {
		t.Errorf("after cancel: button %q", u.ctl.Generate.Text)
	}
}

// TestGenerateRealTinyModel needs the real engine: it generates through engine.Open on
// gpu.Default with the tiny golden model, exactly as the app does.
func TestGenerateRealTinyModel(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), nil)
	u := h.ui
	u.ctl.SetSize(64, 64)
	start := time.Now()
	out := h.generate("a tiny test image")
	if out.Err != nil {
		t.Fatalf("real engine: %v", out.Err)
	}
	t.Logf("generated in %v (engine %v)", time.Since(start), out.Entry.Meta.Duration)
	if u.Gallery.Len() != 1 {
		t.Fatalf("gallery has %d images", u.Gallery.Len())
	}
	e, _ := u.Gallery.At(0)
	img, err := thumbcache.DecodeFile(u.Gallery.Path(e))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
		t.Errorf("image is %v, want 64×64", b)
	}
	meta, ok, err := imageio.ReadMetadata(u.Gallery.Path(e))
	if err != nil || !ok || meta.Prompt != "a tiny test image" || meta.Steps != 4 || meta.Width != 64 || !strings.HasSuffix(meta.Variant, "distilled") {
		t.Errorf("metadata %+v (%v, %v)", meta, ok, err)
	}
	if got := u.ctl.Seed.PlaceHolder; !strings.HasSuffix(got, " "+strconv.FormatUint(meta.Seed, 10)) {
		t.Errorf("seed placeholder %q, metadata seed %d", got, meta.Seed)
	}

	// The model stays loaded: a second run reuses it.
	var opened atomic.Int32
	open := u.run.Open
	u.run.Open = func(src engine.Source, device string) (Generator, error) {
		opened.Add(1)
		return open(src, device)
	}
	if out := h.generate("a second tiny image"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if opened.Load() != 0 {
		t.Error("the engine was opened again for the same folder")
	}
}
