package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/form"
	"kleinbild/app/settings"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// Issue 12, defect 7: edits to the form are kept across a restart without pressing
// Generate.
func TestFormEditsSurviveRestart(t *testing.T) {
	data := t.TempDir()
	model := tinyModel(t)
	fake := newFakeGen()
	h := newHarness(t, data, model, fake.open)
	c := &h.ui.ctl
	c.Prompt.SetText("a red fox in the snow")
	c.Width.SetText("384")
	c.Height.SetText("256")
	c.Steps.SetText("3")
	c.Seed.SetText("4242") // a typed seed is kept (app/form's TestSeedFieldAndLock)
	h.settle()
	h.close() // quit at once, before the debounce has written anything

	h2 := newHarness(t, data, model, fake.open)
	c2 := &h2.ui.ctl
	if c2.Prompt.Text != "a red fox in the snow" || c2.Width.Text != "384" || c2.Height.Text != "256" ||
		c2.Steps.Text != "3" || c2.Seed.Text != "4242" || !c2.SeedIsLocked() {
		t.Errorf("after restart: prompt %q, size %s×%s, steps %q, seed %q locked %v",
			c2.Prompt.Text, c2.Width.Text, c2.Height.Text, c2.Steps.Text, c2.Seed.Text, c2.SeedIsLocked())
	}

	// An edit is also written on its own after a pause, without closing.
	c2.Prompt.SetText("a grey wolf")
	c2.Seed.SetText("") // an emptied seed is random
	time.Sleep(form.SaveDelay + 300*time.Millisecond)
	s, err := settings.Load(h2.ui.Store.Path)
	if err != nil || s.Prompt != "a grey wolf" || s.SeedLocked {
		t.Errorf("settings after a pause: prompt %q, seed locked %v, err %v", s.Prompt, s.SeedLocked, err)
	}
}

// Issue 12, defect 10: the first-start page speaks to end users: how to get a model (the
// download button, or a folder of their own), not the developers' golden test data.
func TestWelcomeTextSpeaksToUsers(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	var text string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.RichText:
			text += w.String() + "\n"
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case *container.Scroll:
			walk(w.Content)
		}
	}
	walk(h.ui.view.Setup)
	low := strings.ToLower(text)
	for _, bad := range []string{"golden", "test data", "tiny test model", "tiny-flux2-klein"} {
		if strings.Contains(low, bad) {
			t.Errorf("welcome text mentions %q: %s", bad, text)
		}
	}
	for _, good := range []string{"download", "choose model"} {
		if !strings.Contains(low, good) {
			t.Errorf("welcome text does not say how to get a model (%q): %s", good, text)
		}
	}
}

// Issue 12, defect 8: unreadable gallery files are all named (the first few and a count),
// and the notice shows once per set of files rather than on every start.
func TestUnreadableGalleryNoticeOncePerSet(t *testing.T) {
	data := t.TempDir()
	gal := filepath.Join(data, "gallery")
	if err := os.MkdirAll(gal, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b1", "b2", "b3"} {
		if err := os.WriteFile(filepath.Join(gal, n+".png"), []byte("not a png"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fake := newFakeGen()
	h := newHarness(t, data, tinyModel(t), fake.open)
	msg := h.ui.ErrorText()
	for _, n := range []string{"3 file", "b1.png", "b2.png", "b3.png"} {
		if !strings.Contains(msg, n) {
			t.Errorf("notice %q does not name %s", msg, n)
		}
	}
	h.settle()
	h.close()

	h = newHarness(t, data, tinyModel(t), fake.open)
	if msg := h.ui.ErrorText(); strings.Contains(msg, "could not be read") {
		t.Errorf("the same files are reported again on the next start: %q", msg)
	}
	h.settle()
	h.close()

	for i := 4; i <= 8; i++ {
		if err := os.WriteFile(filepath.Join(gal, fmt.Sprintf("b%d.png", i)), []byte("not a png"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h = newHarness(t, data, tinyModel(t), fake.open)
	if msg := h.ui.ErrorText(); !strings.Contains(msg, "8 file") || !strings.Contains(msg, "and 3 more") {
		t.Errorf("a new set of unreadable files: notice %q, want 8 files with the first five named", msg)
	}
}

// Issue 12, defect 8: Reuse settings restores the references that still exist and names
// the missing ones.
func TestRestoreSettingsKeepsExistingReferences(t *testing.T) {
	data := t.TempDir()
	refDir := t.TempDir()
	kept := writeTestPNG(t, refDir, "kept.png", 64, 64, nil)
	gone := filepath.Join(refDir, "gone.png")
	h := newHarness(t, data, tinyModel(t), newFakeGen().open)
	u := h.ui
	u.RestoreSettings(imageio.Metadata{
		Settings: schema.Settings{Prompt: "a bridge", Width: 256, Height: 256, Steps: 2, Seed: 5, References: []string{kept, gone}},
	})
	h.settle()
	if len(u.refs.RefPaths()) != 1 || u.refs.RefPaths()[0] != kept {
		t.Errorf("references after restore: %v, want [%s]", u.refs.RefPaths(), kept)
	}
	if msg := u.ErrorText(); !strings.Contains(msg, "gone.png") || strings.Contains(msg, "kept.png") {
		t.Errorf("notice %q should name the missing reference only", msg)
	}
}
