package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
)

// notSaved are the Request fields that no saved settings hold, and why. A new field is
// either saved (Settings, Metadata) or named here: TestRequestSurvivesMetadata fails for
// one that is neither.
var notSaved = map[string]string{
	"Latents":      "a run's input, not a setting",
	"PromptEmbeds": "a run's input, not a setting",
	"Dump":         "a run's output hook",
	"Adapters":     "opened files: an image saves their names and hashes, a queue their paths",
}

// checkAllFields fails for every Request field outside notSaved, and every field of its
// Settings, that is zero in want (so that the test covers it) or differs in got.
func checkAllFields(t *testing.T, want, got Request) {
	t.Helper()
	check := func(wv, gv reflect.Value) {
		for i := range wv.NumField() {
			name := wv.Type().Field(i).Name
			if _, ok := notSaved[name]; ok || name == "Settings" {
				continue
			}
			if wv.Field(i).IsZero() {
				t.Errorf("Request.%s is zero in the test's request: give it a value so that its round trip is tested", name)
			}
			if !reflect.DeepEqual(wv.Field(i).Interface(), gv.Field(i).Interface()) {
				t.Errorf("Request.%s: %v after the round trip, want %v", name, gv.Field(i).Interface(), wv.Field(i).Interface())
			}
		}
	}
	check(reflect.ValueOf(want), reflect.ValueOf(got))
	check(reflect.ValueOf(want.Settings), reflect.ValueOf(got.Settings))
}

// TestRequestSurvivesMetadata: every setting of a Request survives Metadata, the PNG's
// JSON and MetadataRequest (the one way back from an image to its request).
func TestRequestSurvivesMetadata(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	req := Request{
		Settings: Settings{Prompt: "a fox in the snow", NegativePrompt: "blurry, text", Width: 320, Height: 192, Steps: 7, Seed: 1<<40 + 3,
			Noise: NoiseStable, Guidance: 3.5, Schedule: "linear",
			References: []string{file("a.png"), file("b.png")}, AdaptersPartial: true,
			Image: file("in.png"), Mask: file("mask.png"), Strength: 0.7, MaskCrop: 24, RawUnmasked: true,
			Outpaint: OutpaintOf(inpaint.Padding{Left: 16, Top: 32, Right: 48, Bottom: 64})},
	}
	res := &Result{Seed: req.Seed, WidthPx: req.Width, HeightPx: req.Height, Steps: req.Steps,
		Guidance: req.Guidance, Schedule: req.Schedule, Noise: req.Noise, Strength: req.Strength}
	meta, err := Metadata(ModelInfo{Dir: dir}, req, nil, res, "test", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	var back imageio.Metadata
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	checkAllFields(t, req, MetadataRequest(back))
	checkAllFields(t, req, RequestOf(SettingsOf(req)))
}
