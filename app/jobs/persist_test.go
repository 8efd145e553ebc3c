package jobs

import (
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kleinbild/engine"
	"kleinbild/engine/inpaint"
)

// TestQueueRoundTrip: jobs saved and read back are the same requests and counts, in order;
// an empty queue is saved as such; a missing file is no queue.
func TestQueueRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.json")
	if js, notes, err := LoadQueue(path); err != nil || len(js) != 0 || len(notes) != 0 {
		t.Fatalf("missing file: %v %q %v", js, notes, err)
	}
	in := []*Job{
		New(engine.Request{Settings: engine.Settings{Prompt: "a fox ünïcödé", Width: 512, Height: 768, Steps: 4, Seed: 1 << 40, Guidance: 3.5, Schedule: "linear", Noise: engine.NoiseStable, References: []string{"/a/b.png"}}}, 3),
		New(engine.Request{Settings: engine.Settings{Prompt: "repaint", Image: "/x/pic.png", Outpaint: engine.OutpaintOf(inpaint.Padding{Left: 16, Bottom: 32}), Strength: 0.8}}, 1),
	}
	in[1].Picture = image.Pt(640, 480)
	if err := SaveQueue(path, in); err != nil {
		t.Fatal(err)
	}
	got, notes, err := LoadQueue(path)
	if err != nil || len(notes) != 0 || len(got) != len(in) {
		t.Fatalf("loaded %d jobs, notes %q, error %v", len(got), notes, err)
	}
	for i := range in {
		if !reflect.DeepEqual(got[i].Job.Req, in[i].Req) || got[i].Job.Count != in[i].Count || got[i].Job.Picture != in[i].Picture {
			t.Errorf("job %d: %+v ×%d (picture %v), want %+v ×%d (%v)", i, got[i].Job.Req, got[i].Job.Count, got[i].Job.Picture, in[i].Req, in[i].Count, in[i].Picture)
		}
	}
	if err := SaveQueue(path, nil); err != nil {
		t.Fatal(err)
	}
	if got, _, err := LoadQueue(path); err != nil || len(got) != 0 {
		t.Fatalf("empty queue read back as %d jobs (%v)", len(got), err)
	}
}

// TestQueueBadJobsLeftOut: a job with a bad size, schedule or noise is left out with a
// note (the schedule by the engine's rule, which takes power:<alpha>), the others kept; a damaged file is an error and no jobs.
func TestQueueBadJobsLeftOut(t *testing.T) {
	raw := `{"format":1,"jobs":[
		{"prompt":"ok","width":256,"height":256,"seed":1,"count":2},
		{"prompt":"odd","width":250,"height":256,"seed":1,"count":1},
		{"prompt":"sched","width":256,"height":256,"seed":1,"count":1,"schedule":"cosine"},
		{"prompt":"noise","width":256,"height":256,"seed":1,"count":1,"noise":"perlin"},
		{"prompt":"mask","width":256,"height":256,"seed":1,"count":1,"mask":"m.png"},
		{"prompt":"alpha","width":256,"height":256,"seed":1,"count":1,"schedule":"power:1.5"},
		{"prompt":"bad alpha","width":256,"height":256,"seed":1,"count":1,"schedule":"power:-1"}]}`
	js, notes, err := ParseQueue([]byte(raw))
	// power:<alpha> is a schedule the engine runs (sched.ByName): c20726f left it out.
	if err != nil || len(js) != 2 || js[0].Job.Req.Prompt != "ok" || js[0].Job.Count != 2 || js[1].Job.Req.Schedule != "power:1.5" || len(notes) != 5 {
		t.Fatalf("jobs %d, notes %q, error %v", len(js), notes, err)
	}
	// A damaged file, or one of a newer format (a downgrade), is kept aside, not dropped
	// (issue 30 item 7).
	for _, content := range []string{`{"jobs":[{`, `{"format":2,"jobs":[{"prompt":"later","seed":1,"count":1}]}`} {
		path := filepath.Join(t.TempDir(), "queue.json")
		os.WriteFile(path, []byte(content), 0o644)
		js, _, err := LoadQueue(path)
		if err == nil || len(js) != 0 || !strings.Contains(err.Error(), path+UnreadableSuffix) {
			t.Fatalf("%s: %d jobs, error %v", content, len(js), err)
		}
		if kept, _ := os.ReadFile(path + UnreadableSuffix); string(kept) != content {
			t.Errorf("%s: kept aside %q", content, kept)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: still in place, for the next save to replace", content)
		}
	}
}

// TestQueueMissingAdapterSaved: a job whose adapter could not be opened keeps it in Missing,
// marked in its label, and saving writes it back (issue 30 item 7: such jobs were dropped).
func TestQueueMissingAdapterSaved(t *testing.T) {
	js, _, err := ParseQueue([]byte(`{"format":1,"jobs":[{"prompt":"p","width":256,"height":256,"seed":1,"count":1,"adapters":[{"path":"/media/usb/a.safetensors","strength":0.5}]}]}`))
	if err != nil || len(js) != 1 {
		t.Fatalf("%d jobs, %v", len(js), err)
	}
	j := js[0].Job
	j.Missing = js[0].Adapters // as the app does when the file cannot be opened
	if !strings.Contains(j.Label(), "adapter missing") {
		t.Errorf("label %q", j.Label())
	}
	raw, err := EncodeQueue([]*Job{j})
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := ParseQueue(raw)
	if err != nil || len(back) != 1 || len(back[0].Adapters) != 1 || back[0].Adapters[0] != (StoredAdapter{Path: "/media/usb/a.safetensors", Strength: 0.5}) {
		t.Fatalf("saved again as %s (%v)", raw, err)
	}
}

func FuzzParseQueue(f *testing.F) {
	f.Add([]byte(`{"format":1,"jobs":[{"prompt":"ok","width":256,"height":256,"seed":1,"count":2,"adapters":[{"path":"a","strength":1}]}]}`))
	f.Add([]byte(`{"format":1,"jobs":[{"prompt":"x","image":"i.png","outpaint":[1,2,3,4],"strength":0.5}]}`))
	f.Add([]byte(`{"format":9}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		js, _, err := ParseQueue(raw)
		if err != nil {
			return
		}
		if len(js) > MaxStored {
			t.Fatalf("%d jobs", len(js))
		}
		for _, s := range js {
			if err := Check(s.Job.Req); err != nil || s.Job.Count < MinCount || s.Job.Count > MaxCount {
				t.Fatalf("kept a job that fails its checks: %v, count %d", err, s.Job.Count)
			}
			if _, err := EncodeQueue([]*Job{s.Job}); err != nil {
				t.Fatalf("a kept job cannot be saved: %v", err)
			}
		}
	})
}

// TestQueueKeepsEveryField: every field of a Request that a queue can hold (all but the
// run-time inputs, and the adapters, kept as files) survives SaveQueue and LoadQueue, so
// a new Request field without a saved form fails here.
func TestQueueKeepsEveryField(t *testing.T) {
	runOnly := map[string]bool{"Latents": true, "PromptEmbeds": true, "Dump": true, "Adapters": true}
	req := engine.Request{
		Settings: engine.Settings{Prompt: "a fox", NegativePrompt: "blurry", Width: 320, Height: 192, Steps: 7, Seed: 1<<40 + 3, Noise: engine.NoiseStable,
			Guidance: 3.5, Schedule: "linear", References: []string{"/r.png"}, AdaptersPartial: true,
			Image: "/in.png", Mask: "/m.png", Strength: 0.7, MaskCrop: 24, RawUnmasked: true,
			Outpaint: engine.OutpaintOf(inpaint.Padding{Left: 16, Top: 32, Right: 48, Bottom: 64})},
	}
	raw, err := EncodeQueue([]*Job{New(req, 2)})
	if err != nil {
		t.Fatal(err)
	}
	// The stored form is read back as it is, even where the engine would refuse it (a
	// mask and an outpainting at once), so compare the decoded settings.
	var q storedQueue
	if err := json.Unmarshal(raw, &q); err != nil || len(q.Jobs) != 1 {
		t.Fatalf("%d jobs, %v", len(q.Jobs), err)
	}
	got := engine.RequestOf(q.Jobs[0].Settings)
	wv, gv := reflect.ValueOf(req), reflect.ValueOf(got)
	for i := range wv.NumField() {
		name := wv.Type().Field(i).Name
		if runOnly[name] {
			continue
		}
		if wv.Field(i).IsZero() {
			t.Errorf("Request.%s is zero in the test's request: give it a value", name)
		}
		if !reflect.DeepEqual(wv.Field(i).Interface(), gv.Field(i).Interface()) {
			t.Errorf("Request.%s: %v after the round trip, want %v", name, gv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
}
