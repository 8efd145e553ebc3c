package settings

import (
	"path/filepath"
	"reflect"
	"testing"

	"kleinbild/engine"
)

// TestSettingsSurviveSettingsFile: the remembered form embeds engine.Settings, so every
// one of its fields survives settings.json; a new field must be given a value here.
func TestSettingsSurviveSettingsFile(t *testing.T) {
	s := Settings{ModelDir: "/m", Settings: engine.Settings{Prompt: "a fox", NegativePrompt: "blurry", Width: 320, Height: 192,
		Steps: 7, Seed: 1<<63 + 3, Guidance: 20, Schedule: "power:1.5", Noise: engine.NoiseStable, References: []string{"/a.png"},
		AdaptersPartial: true, Image: "/in.png", Mask: "/mask.png", Strength: 0.7, MaskCrop: 24, RawUnmasked: true,
		Outpaint: &[4]int{16, 32, 48, 64}}}
	v := reflect.ValueOf(s.Settings)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("engine.Settings.%s is zero in the test's settings: give it a value", v.Type().Field(i).Name)
		}
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := Save(path, s); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("read back %+v (%v), want %+v", back, err, s)
	}
}

// TestOldSettingsFileLoads: a settings.json written by c20726f (testdata/saved) loads
// whole into the embedded form.
func TestOldSettingsFileLoads(t *testing.T) {
	got, err := Load("../../testdata/saved/c20726f-settings.json")
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{ModelDir: "/models/klein", Settings: engine.Settings{Prompt: "a fox in the snow", NegativePrompt: "blurry, text",
		Width: 512, Height: 768, Steps: 6, Guidance: 3.5, Schedule: "linear", Noise: "stable", Seed: 1<<40 + 3,
		References: []string{"/pics/a.png", "/pics/b.png"}},
		SeedLocked: true, Count: 3, FormModel: "/models/klein", Device: "webgpu:0", ReferenceDir: "/pics",
		LastViewed: "x.png", GalleryOrder: "oldest", SaveDir: "/out", ModelVariant: "base", ModelVAEGroups: 8,
		Adapters: []Adapter{{Path: "/l/a.safetensors", Strength: 0.8, Off: true, Partial: true}}, LoraDir: "/l"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
