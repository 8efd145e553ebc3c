package app

import (
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

func TestParseSide(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    int
		want string
	}{
		{"512", 512, ""}, {" 64 ", 64, ""}, {"1792", 1792, ""},
		{"1800", 1800, "between 64 and 1792"}, {"48", 48, "between 64 and 1792"},
		{"100", 100, "multiple of 16: try 96 or 112"}, {"1.5", 0, "not a whole number"}, {"", 0, "empty"},
	} {
		v, msg := parseSide("Width", c.in)
		if v != c.v || (c.want == "") != (msg == "") || !strings.Contains(msg, c.want) {
			t.Errorf("parseSide(%q) = %d, %q; want %d, %q", c.in, v, msg, c.v, c.want)
		}
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
	if u.ErrorText() != "" {
		t.Errorf("field errors belong inline, banner shows %q", u.ErrorText())
	}
}

// TestTypedSeedIsUsed types a seed without touching the lock: that seed is the one used,
// and the field keeps it. Emptied, the field is random, says so, and stays empty after a
// run, with the seed used in its placeholder. (Before: a typed seed was replaced by a
// random one unless the lock was pressed.)
func TestTypedSeedIsUsed(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.seed.SetText("")
	test.Type(u.ctl.seed, "42")
	if !u.ctl.seedLocked {
		t.Errorf("a typed seed does not show as kept")
	}
	if out := h.generate("a lighthouse"); out.err != nil {
		t.Fatalf("generate: %v", out.err)
	}
	if got := fake.lastRequest().Seed; got != 42 || u.ctl.seed.Text != "42" {
		t.Errorf("typed seed 42: generated with %d, field %q", got, u.ctl.seed.Text)
	}
	test.Tap(u.ctl.lock) // back to random
	if u.ctl.seed.Text != "" || u.ctl.seedLocked || !strings.Contains(u.ctl.seed.PlaceHolder, "random") {
		t.Fatalf("random: field %q placeholder %q locked %v", u.ctl.seed.Text, u.ctl.seed.PlaceHolder, u.ctl.seedLocked)
	}
	if out := h.generate("a lighthouse"); out.err != nil {
		t.Fatalf("generate: %v", out.err)
	}
	used := fake.lastRequest().Seed
	if u.ctl.seed.Text != "" || !strings.Contains(u.ctl.seed.PlaceHolder, strconv.FormatUint(used, 10)) {
		t.Errorf("after a random run: field %q placeholder %q, seed used %d", u.ctl.seed.Text, u.ctl.seed.PlaceHolder, used)
	}
	test.Tap(u.ctl.lock) // keep the last seed
	if u.ctl.seed.Text != strconv.FormatUint(used, 10) || !u.ctl.seedLocked {
		t.Errorf("keeping: field %q, want %d", u.ctl.seed.Text, used)
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
	if len(u.refs.RefPaths()) != 1 || u.ctl.prompt.Text != "a bridge" {
		t.Errorf("keep mine: references %v, prompt %q", u.refs.RefPaths(), u.ctl.prompt.Text)
	}
	u.RestoreSettings(meta)
	h.tapDialogButton("Replace")
	if len(u.refs.RefPaths()) != 0 {
		t.Errorf("replace: references %v", u.refs.RefPaths())
	}
}
