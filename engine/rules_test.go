package engine

import (
	"errors"
	"image"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCheckSettingsFields: CheckSettings is the one rule entry point; each broken field
// comes back as a *FieldError naming the field, its value and its limits, and NewPlan
// refuses the same settings (c20726f let a bogus schedule through to the run, which failed
// after the references were read).
func TestCheckSettingsFields(t *testing.T) {
	for _, c := range []struct {
		s        Settings
		field    string
		min, max float64
		choices  bool
	}{
		{Settings{Schedule: "bogus"}, "schedule", 0, 0, true},
		{Settings{Schedule: "power:-1"}, "schedule", 0, 0, true},
		{Settings{Steps: MaxSteps + 1}, "steps", MinSteps, MaxSteps, false},
		{Settings{Guidance: MaxGuidance + 1}, "guidance", MinGuidance, MaxGuidance, false},
		{Settings{Noise: "pink"}, "noise", 0, 0, true},
		{Settings{Width: 8}, "width", EngineMinSidePx, EngineMaxSidePx, false},
		{Settings{Height: EngineMaxSidePx + SizeMultiple}, "height", EngineMinSidePx, EngineMaxSidePx, false},
		{Settings{References: make([]string, MaxReferences+1)}, "references", 0, MaxReferences, false},
	} {
		err := CheckSettings(c.s, false)
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%+v: %v, want a *FieldError", c.s, err)
			continue
		}
		if fe.Field != c.field || fe.Min != c.min || fe.Max != c.max || (fe.Choices != nil) != c.choices || fe.Error() == "" {
			t.Errorf("%+v: got %+v", c.s, *fe)
		}
		if _, err := NewPlan(RequestOf(c.s), false, nil); !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("NewPlan %+v: %v, want the %s refused", c.s, err, c.field)
		}
	}
	for _, name := range []string{"", "flow", "linear", "power", "power:1.5"} {
		if err := CheckSettings(Settings{Schedule: name, Width: 112, Height: EngineMaxSidePx}, true); err != nil {
			t.Errorf("schedule %q: %v", name, err)
		}
	}
	var se *SizeError
	if err := CheckSettings(Settings{Width: 8}, true); !errors.As(err, &se) || !se.OutOfRange || se.Min != EngineMinSidePx {
		t.Errorf("width 8: %v, want the SizeError inside", err)
	}
	// Within the range a side is floored, as the reference pipeline does.
	if p, err := NewPlan(Request{Settings: Settings{Width: 100, Height: 70}}, true, nil); err != nil || p.WidthPx != 96 || p.HeightPx != 64 {
		t.Errorf("100×70 planned as %d×%d (%v), want 96×64", p.WidthPx, p.HeightPx, err)
	}
}

// TestPlanKeepsPictureSizes: sizes taken from pictures (already floored by the
// preprocessing) still plan; only a request's own sizes must be exact.
func TestPlanKeepsPictureSizes(t *testing.T) {
	p, err := NewPlan(Request{}, true, []image.Point{{X: 320, Y: 48}})
	if err != nil || p.WidthPx != 320 || p.HeightPx != 48 {
		t.Fatalf("plan %dx%d, %v", p.WidthPx, p.HeightPx, err)
	}
}

// TestRandomSeed: every front end draws its seeds here, in 0..MaxRandomSeed, over more
// than a few values.
func TestRandomSeed(t *testing.T) {
	var seen []uint64
	for range 64 {
		s := RandomSeed()
		if s > MaxRandomSeed {
			t.Fatalf("seed %d above %d", s, uint64(MaxRandomSeed))
		}
		if !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	if len(seen) < 60 {
		t.Errorf("%d distinct seeds of 64", len(seen))
	}
}

// TestMetadataRecordsSumsBeforeRun: the sums HashInputs takes before a run are what
// Metadata records, whatever the file holds once the image is made.
func TestMetadataRecordsSumsBeforeRun(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref.png")
	if err := os.WriteFile(ref, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := Request{Settings: Settings{Prompt: "x", References: []string{ref}}}
	sums, err := HashInputs(req)
	if err != nil {
		t.Fatal(err)
	}
	before := sums[ref]
	if err := os.WriteFile(ref, []byte("after"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := &Result{Seed: 1, WidthPx: 16, HeightPx: 16, Steps: 1, Guidance: 1}
	meta, err := Metadata(ModelInfo{Dir: "m", Distilled: true}, req, sums, res, "test", 0)
	if src := meta.Sources(); err != nil || len(src) != 1 || src[0].SHA256 != before {
		t.Errorf("metadata %+v (%v), want the sum before the run %s", src, err, before)
	}
	if again, _ := Metadata(ModelInfo{Dir: "m", Distilled: true}, req, nil, res, "test", 0); again.Sources()[0].SHA256 == before {
		t.Error("without sums the file is not hashed as it is now")
	}
}
