package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

func TestLargerSize(t *testing.T) {
	cases := []struct {
		w, h, nw, nh int
		ok           bool
	}{
		{512, 512, 720, 720, true},
		{256, 192, 368, 272, true},
		{768, 1024, 1088, 1456, true},
		{1024, 576, 1456, 816, true},
		{1440, 1440, 1792, 1792, true},
		{1024, 1792, 1024, 1792, false}, // the long side is at the limit already
		{1792, 1792, 1792, 1792, false},
		{0, 512, 0, 0, false},
	}
	for _, c := range cases {
		nw, nh, ok := largerSize(c.w, c.h)
		if nw != c.nw || nh != c.nh || ok != c.ok {
			t.Errorf("largerSize(%d, %d) = %d, %d, %v; want %d, %d, %v", c.w, c.h, nw, nh, ok, c.nw, c.nh, c.ok)
		}
		if ok && (nw%16 != 0 || nh%16 != 0 || nw > maxSide || nh > maxSide) {
			t.Errorf("largerSize(%d, %d) = %d × %d is not a valid size", c.w, c.h, nw, nh)
		}
	}
}

// Issue 12: "Render larger" on a gallery image queues (while another runs) a job at twice
// the area with the same prompt, seed, steps and guidance, and the image itself and its
// references that still exist as references.
func TestRenderLargerQueuesTheImage(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	refDir := t.TempDir()
	ref := writeTestPNG(t, refDir, "ref.png", 64, 64, nil)
	u.AddReference(ref)
	if len(u.refs.RefPaths()) != 1 {
		t.Fatalf("reference not added: %q", u.ErrorText())
	}
	lockSeed(u, 4242)
	u.ctl.setSize(256, 192)
	u.ctl.steps.SetText("3")
	out := h.generate("a lighthouse at dusk")
	if out.err != nil {
		t.Fatal(out.err)
	}
	src := out.entry
	<-fake.started // the first run's

	// A second run blocks, so the render-larger job waits in the queue.
	fake.block = true
	u.refs.Remove(ref)
	u.ctl.prompt.SetText("something else")
	test.Tap(u.ctl.generate)
	waitStarted(t, h, fake)
	u.gal.SelectEntry(src.File, nil)
	btn := findIconButton(u.view.Actions, theme.ZoomInIcon().Name())
	if btn == nil {
		t.Fatal("the viewer has no 'Render larger' button")
	}
	test.Tap(btn)
	if len(u.run.queue.Jobs) != 1 {
		t.Fatalf("%d jobs queued, want 1", len(u.run.queue.Jobs))
	}
	j := u.run.queue.Jobs[0]
	r := j.Req
	if r.Width != 368 || r.Height != 272 || r.Seed != 4242 || r.Prompt != "a lighthouse at dusk" || r.Steps != 3 || j.Count != 1 {
		t.Errorf("queued request %+v (count %d)", r, j.Count)
	}
	if len(r.References) != 2 || r.References[0] != u.Gallery.Path(src) || r.References[1] != ref {
		t.Errorf("references %v, want [%s %s]", r.References, u.Gallery.Path(src), ref)
	}
	if r.Guidance != src.Meta.Guidance && !u.model.ModelInfo().Distilled {
		t.Errorf("guidance %v, image had %v", r.Guidance, src.Meta.Guidance)
	}

	// Once the running job is cancelled, the queued one runs with that request.
	test.Tap(u.ctl.generate)
	waitStarted(t, h, fake)
	if got := fake.lastRequest(); got.Width != 368 || got.Seed != 4242 || len(got.References) != 2 || got.References[0] != u.Gallery.Path(src) {
		t.Errorf("generator got %+v", got)
	}
	test.Tap(u.ctl.generate)
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.cur == nil })
}

// Issue 12: "Render larger" on an image without settings, or at the largest size, says why
// and queues nothing.
func TestRenderLargerRefusesWithReason(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	for _, c := range []struct {
		meta *imageio.Metadata
		want string
	}{
		{nil, "no Kleinbild settings"},
		{&imageio.Metadata{Settings: schema.Settings{Prompt: "big", Width: 1792, Height: 1792, Seed: 1}}, "already at the largest size"},
		// Without its adapters the larger render would be another picture.
		{&imageio.Metadata{Settings: schema.Settings{Prompt: "styled", Width: 256, Height: 256, Seed: 1}, Adapters: []imageio.Adapter{{File: "style.safetensors", SHA256: "ab", Strength: 0.8}}}, "made with adapters (style.safetensors)"},
	} {
		if _, err := u.run.renderLargerJob(gallery.Entry{HasMeta: c.meta != nil, Meta: derefMeta(c.meta)}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if fake.calls.Load() != 0 || len(u.run.queue.Jobs) != 0 {
		t.Error("a refused render-larger started or queued a job")
	}
}

// findIconButton returns the button with the icon named icon inside o.
func findIconButton(o fyne.CanvasObject, icon string) *widget.Button {
	switch v := o.(type) {
	case *widgets.TipButton:
		if v.Icon != nil && v.Icon.Name() == icon {
			return &v.Button
		}
	case *widget.Button:
		if v.Icon != nil && v.Icon.Name() == icon {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := findIconButton(c, icon); b != nil {
				return b
			}
		}
	}
	return nil
}

func derefMeta(m *imageio.Metadata) imageio.Metadata {
	if m == nil {
		return imageio.Metadata{}
	}
	return *m
}

// Issue 29: "Render larger" makes the image's own request again (engine.MetadataRequest),
// so a size-stable image is rendered larger with size-stable noise (it used to get torch
// noise, and another composition), and an inpainted image becomes a plain text-to-image
// job with the picture as its reference.
func TestRenderLargerKeepsStableNoise(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	for _, noise := range []string{engine.NoiseStable, engine.NoiseTorch} {
		meta := imageio.Metadata{Settings: schema.Settings{Prompt: "a lighthouse", Width: 256, Height: 192, Seed: 9, Steps: 3, Schedule: "linear", Noise: noise}}
		j, err := h.ui.run.renderLargerJob(gallery.Entry{File: "x.png", HasMeta: true, Meta: meta})
		if err != nil {
			t.Fatal(err)
		}
		if r := j.Req; r.Noise != noise || r.Schedule != "linear" || r.Steps != 3 || r.Seed != 9 || r.Width != 368 || r.Height != 272 {
			t.Errorf("noise %s: queued request %+v", noise, r)
		}
	}
	meta := imageio.Metadata{
		Settings: schema.Settings{Prompt: "repainted", Width: 256, Height: 256, Seed: 9, Noise: engine.NoiseStable,
			Image: "/in.png", Mask: "/m.png", Strength: 0.6, MaskCrop: 8},
	}
	j, err := h.ui.run.renderLargerJob(gallery.Entry{File: "y.png", HasMeta: true, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	if r := j.Req; r.Image != "" || r.Mask != "" || r.Strength != 0 || r.MaskCrop != 0 || r.Noise != engine.NoiseStable || len(r.References) != 1 {
		t.Errorf("render larger of an inpainted image: %+v", r)
	}
}
