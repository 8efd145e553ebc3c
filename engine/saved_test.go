package engine

import (
	"bytes"
	"image"
	"reflect"
	"testing"

	"kleinbild/engine/imageio"
)

// settingsSamples are Settings with every field set in at least one of them (a mask and
// outpainting exclude each other); checkSamplesCover fails for a field none sets, so a new
// field must be given a value here, and its round trips are tested.
var settingsSamples = []Settings{
	{Prompt: "a fox in the snow", NegativePrompt: "blurry, text", Width: 320, Height: 192, Steps: 7, Seed: 1<<63 + 3,
		Guidance: 3.5, Schedule: "power:1.5", Noise: NoiseStable, References: []string{"/pics/a.png"}, AdaptersPartial: true,
		Image: "/pics/in.png", Mask: "/pics/mask.png", Strength: 0.7, MaskCrop: 24, RawUnmasked: true},
	{Prompt: "extend", Width: 96, Height: 48, Steps: 4, Seed: 8, Schedule: "linear", Image: "/pics/in.png", Strength: 0.8,
		Outpaint: &[4]int{16, 32, 48, 64}},
}

func checkSamplesCover(t *testing.T) {
	t.Helper()
	typ := reflect.TypeFor[Settings]()
	for i := range typ.NumField() {
		set := false
		for _, s := range settingsSamples {
			set = set || !reflect.ValueOf(s).Field(i).IsZero()
		}
		if !set {
			t.Errorf("Settings.%s is zero in every sample: give it a value so that its round trips are tested", typ.Field(i).Name)
		}
	}
}

// TestSettingsSurvivePNG: every Settings field survives an image's metadata as the PNG
// holds it (Metadata, EncodePNG, ReadMetadataFrom, the metadata's Settings), with the references'
// and pictures' paths made absolute. The queue and the remembered form are tested in
// app/jobs (TestSettingsSurviveQueue) and app/settings (TestSettingsSurviveSettingsFile).
func TestSettingsSurvivePNG(t *testing.T) {
	checkSamplesCover(t)
	for _, s := range settingsSamples {
		req := RequestOf(s)
		res := &Result{Seed: s.Seed, WidthPx: s.Width, HeightPx: s.Height, Steps: s.Steps, Guidance: s.Guidance,
			Schedule: s.Schedule, Noise: s.Noise, Strength: s.Strength}
		sums := Sums{}
		for _, p := range []string{"/pics/a.png", "/pics/in.png", "/pics/mask.png"} {
			sums[p] = "0123"
		}
		meta, err := Metadata(ModelInfo{Dir: "m"}, req, sums, res, "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := imageio.EncodePNG(image.NewNRGBA(image.Rect(0, 0, 4, 4)), meta)
		if err != nil {
			t.Fatal(err)
		}
		back, ok, err := imageio.ReadMetadataFrom(bytes.NewReader(raw))
		if err != nil || !ok {
			t.Fatalf("metadata read back: %v, %v", ok, err)
		}
		if got := back.Settings; !reflect.DeepEqual(got, s) {
			t.Errorf("after the PNG:\n got %+v\nwant %+v", got, s)
		}
	}
}

// TestOldPNGsLoad: images written by c20726f (testdata/saved, made with its generate)
// give back the settings they were made with.
func TestOldPNGsLoad(t *testing.T) {
	for name, want := range map[string]Settings{
		"c20726f-t2i.png": {Prompt: "a fox in the snow", NegativePrompt: "blurry, text", Width: 80, Height: 48, Steps: 3,
			Seed: 1099511627779, Guidance: 3.5, Schedule: "power", Noise: NoiseStable, References: []string{"/tmp/schema-fix/ref.png"}},
		"c20726f-inpaint.png": {Prompt: "repaint it", Width: 64, Height: 48, Steps: 4, Seed: 7, Guidance: 4, Schedule: "flow",
			Noise: NoiseTorch, Image: "/tmp/schema-fix/in.png", Mask: "/tmp/schema-fix/mask.png", Strength: 0.7, MaskCrop: 24, RawUnmasked: true},
		"c20726f-outpaint.png": {Prompt: "extend it", Width: 96, Height: 48, Steps: 4, Seed: 8, Guidance: 4, Schedule: "flow",
			Noise: NoiseTorch, Image: "/tmp/schema-fix/in.png", Strength: 0.8, Outpaint: &[4]int{16, 0, 16, 0}},
	} {
		meta, ok, err := imageio.ReadMetadata("../testdata/saved/" + name)
		if err != nil || !ok {
			t.Fatalf("%s: %v, %v", name, ok, err)
		}
		if got := meta.Settings; !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
		if err := CheckSettings(meta.Settings, false); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
