package jobs

import (
	"image"
	"reflect"
	"testing"

	"kleinbild/engine"
)

// TestSettingsSurviveQueue: every engine.Settings field survives the stored queue; a new
// field must be given a value in one of the samples (the test fails for one none sets).
func TestSettingsSurviveQueue(t *testing.T) {
	samples := []engine.Settings{
		{Prompt: "a fox in the snow", NegativePrompt: "blurry, text", Width: 320, Height: 192, Steps: 7, Seed: 1<<63 + 3,
			Guidance: 3.5, Schedule: "power:1.5", Noise: engine.NoiseStable, References: []string{"/pics/a.png"}, AdaptersPartial: true,
			Image: "/pics/in.png", Mask: "/pics/mask.png", Strength: 0.7, MaskCrop: 24, RawUnmasked: true},
		{Prompt: "extend", Width: 96, Height: 48, Steps: 4, Seed: 8, Schedule: "linear", Image: "/pics/in.png", Strength: 0.8,
			Outpaint: &[4]int{16, 32, 48, 64}},
	}
	typ := reflect.TypeFor[engine.Settings]()
	for i := range typ.NumField() {
		set := false
		for _, s := range samples {
			set = set || !reflect.ValueOf(s).Field(i).IsZero()
		}
		if !set {
			t.Errorf("engine.Settings.%s is zero in every sample: give it a value", typ.Field(i).Name)
		}
	}
	var js []*Job
	for _, s := range samples {
		js = append(js, New(engine.RequestOf(s), 2))
	}
	raw, err := EncodeQueue(js)
	if err != nil {
		t.Fatal(err)
	}
	back, notes, err := ParseQueue(raw)
	if err != nil || len(back) != len(samples) {
		t.Fatalf("%d jobs read back of %d (%q, %v)", len(back), len(samples), notes, err)
	}
	for i, s := range samples {
		if got := engine.SettingsOf(back[i].Job.Req); !reflect.DeepEqual(got, s) {
			t.Errorf("job %d after the queue:\n got %+v\nwant %+v", i, got, s)
		}
	}
}

// TestOldQueueLoads: a queue.json written by c20726f (testdata/saved) loads whole.
func TestOldQueueLoads(t *testing.T) {
	js, notes, err := LoadQueue("../../testdata/saved/c20726f-queue.json")
	if err != nil || len(js) != 3 || len(notes) != 0 {
		t.Fatalf("%d jobs, notes %q, %v", len(js), notes, err)
	}
	want := []engine.Settings{
		{Prompt: "a fox in the snow", NegativePrompt: "blurry, text", Width: 320, Height: 192, Steps: 7, Seed: 1<<40 + 3,
			Noise: engine.NoiseStable, Guidance: 3.5, Schedule: "linear", References: []string{"/pics/a.png"}, AdaptersPartial: true},
		{Prompt: "repaint", Steps: 4, Seed: 9, Image: "/pics/in.png", Mask: "/pics/mask.png", Strength: 0.7, MaskCrop: 24, RawUnmasked: true},
		{Prompt: "extend", Steps: 4, Seed: 10, Image: "/pics/in.png", Outpaint: &[4]int{16, 32, 48, 64}},
	}
	for i, w := range want {
		if got := js[i].Job.Req; !reflect.DeepEqual(got, engine.RequestOf(w)) {
			t.Errorf("job %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
	if js[0].Job.Count != 3 || js[1].Job.Picture != image.Pt(640, 480) || len(js[2].Adapters) != 1 || js[2].Adapters[0].Path != "/l/gone.safetensors" {
		t.Errorf("count %d, picture %v, adapters %+v", js[0].Job.Count, js[1].Job.Picture, js[2].Adapters)
	}
}
