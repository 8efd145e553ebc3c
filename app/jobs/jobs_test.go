package jobs

import (
	"image"
	"strings"
	"testing"

	"kleinbild/engine"
)

func TestCheck(t *testing.T) {
	ok := engine.Request{Settings: engine.Settings{Prompt: "a cat", Width: 256, Height: 512, Steps: 4, Guidance: 4}}
	if err := Check(ok); err != nil {
		t.Fatalf("a good request: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*engine.Request)
		want string
	}{
		{"width off the grid", func(r *engine.Request) { r.Width = 100 }, "the width: 100 px is not a multiple of 16: try 96 or 112"},
		{"height too large", func(r *engine.Request) { r.Height = 4096 }, "the height: 4096 px is out of range"},
		{"zero size (no default for a job)", func(r *engine.Request) { r.Width = 0 }, "the width: 0 px is out of range"},
		{"steps", func(r *engine.Request) { r.Steps = engine.MaxSteps + 1 }, "201 steps is out of range: use 1 to 200"},
		{"references", func(r *engine.Request) { r.References = make([]string, engine.MaxReferences+1) }, "9 reference images: at most 8 can be used"},
		{"guidance", func(r *engine.Request) { r.Guidance = 0.5 }, "guidance 0.5 is out of range"},
		{"prompt", func(r *engine.Request) { r.Prompt = strings.Repeat("x", engine.MaxPromptBytes+1) }, "prompt is 65537 bytes long"},
		{"noise", func(r *engine.Request) { r.Noise = "perlin" }, `noise "perlin" is unknown`},
		// The rest of the request is the engine's one check (CheckRequest), not the queue's.
		{"mask crop", func(r *engine.Request) { r.Image, r.Mask, r.MaskCrop = "in.png", "m.png", -1 }, "mask crop padding -1 px is out of range"},
	} {
		req := ok
		tc.edit(&req)
		if err := Check(req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if got := New(engine.Request{Settings: engine.Settings{Prompt: "a cat", Image: "/p/in.png", Mask: "m.png"}}, 1).Label(); got != "a cat · inpaint in.png" {
		t.Errorf("inpainting label %q", got)
	}
	// Inpainting takes the image's size: no size is checked.
	if err := Check(engine.Request{Settings: engine.Settings{Prompt: "a cat", Image: "in.png", Mask: "mask.png"}}); err != nil {
		t.Errorf("an inpainting job without a size: %v", err)
	}
}

func TestNewClampsCount(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, MinCount}, {-3, MinCount}, {5, 5}, {MaxCount + 1, MaxCount}} {
		if j := New(engine.Request{}, tc.in); j.Count != tc.want {
			t.Errorf("New(count %d).Count = %d, want %d", tc.in, j.Count, tc.want)
		}
	}
}

func TestLabel(t *testing.T) {
	j := New(engine.Request{Settings: engine.Settings{Prompt: "a  red\ncube on a blue table in the evening light", Width: 320, Height: 192}}, 3)
	if got, want := j.Label(), "a red cube on a blue table in t… · 320×192 · 3 images"; got != want {
		t.Errorf("Label() = %q, want %q", got, want)
	}
	j.Count = 1
	if got, want := j.Label(), "a red cube on a blue table in t… · 320×192"; got != want {
		t.Errorf("Label() = %q, want %q", got, want)
	}
}

func TestEstimateRequest(t *testing.T) {
	j := New(engine.Request{Settings: engine.Settings{Width: 512, Height: 256, Steps: 7, Guidance: 3, References: []string{"a.png", "b.png"}}}, 1)
	base := j.EstimateRequest(false)
	if b := base.Req; b.Width != 512 || b.Height != 256 || b.Steps != 7 || len(b.References) != 2 || b.Guidance != 3 {
		t.Errorf("base model: %+v", base)
	}
	if d := j.EstimateRequest(true); d.Req.Guidance != 0 {
		t.Errorf("distilled model: guidance %v, want 0 (none)", d.Req.Guidance)
	}
	inp := New(engine.Request{Settings: engine.Settings{Image: "pic.png", Mask: "m.png"}}, 1)
	inp.Picture = image.Pt(800, 600)
	if r := inp.EstimateRequest(true); r.PictureSize != image.Pt(800, 600) || r.Req.Image != "pic.png" {
		t.Errorf("inpainting: picture %v of %q, want 800×600 of pic.png", r.PictureSize, r.Req.Image)
	}
}
