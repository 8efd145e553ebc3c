package app

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// A dropped reference reaches the engine, and its hash the image's metadata. (The
// References section itself is tested in package inputs.)
func TestDroppedReferenceReachesTheRun(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	a := writeTestPNG(t, t.TempDir(), "a.png", 96, 80, nil)
	h.drop([]fyne.URI{storage.NewFileURI(a)})
	if refs := u.refs.RefPaths(); len(refs) != 1 || refs[0] != a {
		t.Fatalf("refs = %v", refs)
	}
	out := h.generate("make it blue")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().References; len(got) != 1 || got[0] != a {
		t.Errorf("request references %v", got)
	}
	sum, _ := imageio.SHA256File(a)
	if refs := out.Entry.Meta.Sources(); len(refs) != 1 || refs[0].Path != a || refs[0].SHA256 != sum {
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
		Settings: schema.Settings{Prompt: "a castle on a hill", Seed: 1234, Width: 768, Height: 512, Steps: 3, Schedule: "linear",
			References: []string{ref, filepath.Join(dir, "gone.png")}},
	})

	h.drop([]fyne.URI{storage.NewFileURI(p)})
	if len(u.refs.RefPaths()) != 0 {
		t.Fatalf("a Kleinbild PNG was added without asking")
	}
	h.tapDialogButton("Restore settings")
	c := &u.ctl
	f, _ := c.ReadForm() // the schedule menu's label is app/form's TestRestoreFillsTheForm
	if c.Prompt.Text != "a castle on a hill" || c.Width.Text != "768" || c.Height.Text != "512" ||
		c.Steps.Text != "3" || c.Seed.Text != "1234" || !c.SeedIsLocked() || f.Schedule != "linear" {
		t.Errorf("restored: prompt %q, %s×%s, steps %s, seed %s (locked %v), schedule %q",
			c.Prompt.Text, c.Width.Text, c.Height.Text, c.Steps.Text, c.Seed.Text, c.SeedIsLocked(), f.Schedule)
	}
	if len(u.refs.RefPaths()) != 1 || u.refs.RefPaths()[0] != ref {
		t.Errorf("restored references %v", u.refs.RefPaths())
	}
	if !strings.Contains(u.ErrorText(), "gone.png") {
		t.Errorf("missing reference not reported: %q", u.ErrorText())
	}

	h.drop([]fyne.URI{storage.NewFileURI(p)})
	h.tapDialogButton("Use as reference")
	if len(u.refs.RefPaths()) != 2 || u.refs.RefPaths()[1] != p {
		t.Errorf("after 'Use as reference': refs %v", u.refs.RefPaths())
	}
}

// drop drops uris onto the window and runs the event loop until the drop is applied.
func (h *harness) drop(uris []fyne.URI) {
	h.t.Helper()
	done := h.ui.handleDrop(uris)
	h.waitFor("the drop to be applied", 10*time.Second, func() bool { return closedChan(done) })
}

func closedChan(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestDropSaysWhatHappened: a dropped reference is named in the status line and the form
// scrolls to the references, even when it was scrolled to the top. (Before: nothing
// visible changed, and the next run silently used the file.)
func TestDropSaysWhatHappened(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	h.win.Resize(fyne.NewSize(1024, 560))
	h.settle()
	u.ctl.Scroll.ScrollToTop()
	h.drop([]fyne.URI{storage.NewFileURI(writeTestPNG(t, t.TempDir(), "pebble.png", 64, 64, nil))})
	if len(u.refs.RefPaths()) != 1 || !strings.Contains(u.Status.Text, "pebble.png") {
		t.Errorf("references %v, status %q", u.refs.RefPaths(), u.Status.Text)
	}
	t.Logf("form %v in %v, offset %v", u.ctl.Scroll.Content.Size(), u.ctl.Scroll.Size(), u.ctl.Scroll.Offset)
	if u.ctl.Scroll.Content.Size().Height > u.ctl.Scroll.Size().Height && u.ctl.Scroll.Offset.Y <= 0 {
		t.Errorf("the form stays at the top (offset %v) with the references out of view", u.ctl.Scroll.Offset)
	}
}
