package app

import (
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// TestInvalidSettingsAreRefused: Generate starts nothing while a field is invalid, and the
// messages show beside the fields, not in the banner. (Each field's message, and the
// presets, are app/form's TestInvalidFieldsShowInline.)
func TestInvalidSettingsAreRefused(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	test.Type(u.ctl.Prompt, "anything")
	cases := []struct{ w, h, want string }{
		{"500", "512", "multiple of 16: try 496 or 512"},
		{"512", "2048", "between 64 and 1792"},
		{"32", "512", "between 64 and 1792"},
		{"abc", "512", "not a whole number"},
		{"", "512", "empty"},
	}
	for _, c := range cases {
		u.ctl.Width.SetText(c.w)
		u.ctl.Height.SetText(c.h)
		if !u.ctl.SizeErr.Visible() || !strings.Contains(u.ctl.SizeErr.Text, c.want) {
			t.Errorf("%s×%s: inline message %q (visible %v), want %q", c.w, c.h, u.ctl.SizeErr.Text, u.ctl.SizeErr.Visible(), c.want)
		}
		test.Tap(u.ctl.Generate)
		if u.run.Current() != nil {
			t.Fatalf("%s×%s: generation started", c.w, c.h)
		}
	}
	u.ctl.SetSize(768, 1024)
	u.ctl.Steps.SetText("0")
	test.Tap(u.ctl.Generate)
	if u.run.Current() != nil {
		t.Errorf("steps 0 accepted")
	}
	u.ctl.Steps.SetText("4")
	u.ctl.Seed.SetText("-3")
	test.Tap(u.ctl.Generate)
	if u.run.Current() != nil {
		t.Errorf("seed -3 accepted")
	}
	u.ctl.Seed.SetText("")
	u.ctl.Prompt.SetText("  ")
	test.Tap(u.ctl.Generate)
	if u.run.Current() != nil || !u.ctl.PromptErr.Visible() {
		t.Errorf("empty prompt accepted")
	}
	if fake.calls.Load() != 0 {
		t.Errorf("generator called %d times", fake.calls.Load())
	}
	if u.ErrorText() != "" {
		t.Errorf("field errors belong inline, banner shows %q", u.ErrorText())
	}
}

// TestTypedSeedIsUsed types a seed without touching the lock: that seed is the one used,
// and the field keeps it. Emptied, the field is random, says so, and stays empty after a
// run, with the seed used in its placeholder. (Before: a typed seed was replaced by a
// random one unless the lock was pressed.) The lock button, which keeps that seed, and
// the dice are app/form's TestSeedFieldAndLock.
func TestTypedSeedIsUsed(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.Seed.SetText("")
	test.Type(u.ctl.Seed, "42")
	if !u.ctl.SeedIsLocked() {
		t.Errorf("a typed seed does not show as kept")
	}
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatalf("generate: %v", out.Err)
	}
	if got := fake.lastRequest().Seed; got != 42 || u.ctl.Seed.Text != "42" {
		t.Errorf("typed seed 42: generated with %d, field %q", got, u.ctl.Seed.Text)
	}
	u.ctl.Seed.SetText("") // back to random
	if u.ctl.Seed.Text != "" || u.ctl.SeedIsLocked() || !strings.Contains(u.ctl.Seed.PlaceHolder, "random") {
		t.Fatalf("random: field %q placeholder %q locked %v", u.ctl.Seed.Text, u.ctl.Seed.PlaceHolder, u.ctl.SeedIsLocked())
	}
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatalf("generate: %v", out.Err)
	}
	used := fake.lastRequest().Seed
	if u.ctl.Seed.Text != "" || !strings.Contains(u.ctl.Seed.PlaceHolder, strconv.FormatUint(used, 10)) {
		t.Errorf("after a random run: field %q placeholder %q, seed used %d", u.ctl.Seed.Text, u.ctl.Seed.PlaceHolder, used)
	}
}

// TestRestoreAsksBeforeReplacingReferences: restoring an image's settings does not drop
// the references the user added without asking. (Before: they silently went.)
func TestRestoreAsksBeforeReplacingReferences(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	ref := writeTestPNG(t, t.TempDir(), "mine.png", 64, 64, nil)
	if err := u.refs.Add(ref); err != nil {
		t.Fatal(err)
	}
	meta := imageio.Metadata{Settings: schema.Settings{Prompt: "a bridge", Width: 256, Height: 256, Steps: 2, Seed: 5}}
	u.RestoreSettings(meta)
	if len(u.refs.RefPaths()) != 1 || h.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("references %v replaced without a question", u.refs.RefPaths())
	}
	h.tapDialogButton("Keep mine")
	if len(u.refs.RefPaths()) != 1 || u.ctl.Prompt.Text != "a bridge" {
		t.Errorf("keep mine: references %v, prompt %q", u.refs.RefPaths(), u.ctl.Prompt.Text)
	}
	u.RestoreSettings(meta)
	h.tapDialogButton("Replace")
	if len(u.refs.RefPaths()) != 0 {
		t.Errorf("replace: references %v", u.refs.RefPaths())
	}
}
