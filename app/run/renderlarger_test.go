package run

import (
	"context"
	"strings"
	"testing"

	"kleinbild/app/gallery"
	"kleinbild/app/jobqueue"
	"kleinbild/app/shell"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// infoModel is a chosen model that only tells its info.
type infoModel struct {
	Model
	info engine.ModelInfo
}

func (m infoModel) ModelInfo() engine.ModelInfo { return m.info }

// largerRunner is a runner with an empty gallery and queue, on a distilled model (as the
// tiny model is), for renderLargerJob.
func largerRunner(t *testing.T) *Runner {
	t.Helper()
	g, _, err := gallery.Open(context.Background(), t.TempDir(), gallery.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{sh: &shell.Shell{Gallery: g}, Deps: Deps{Model: infoModel{info: engine.ModelInfo{Distilled: true}}}, Queue: &jobqueue.Queue{}}
}

func derefMeta(m *imageio.Metadata) imageio.Metadata {
	if m == nil {
		return imageio.Metadata{}
	}
	return *m
}

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
		if ok && (nw%16 != 0 || nh%16 != 0 || nw > engine.MaxSidePx || nh > engine.MaxSidePx) {
			t.Errorf("largerSize(%d, %d) = %d × %d is not a valid size", c.w, c.h, nw, nh)
		}
	}
}

// Issue 12: "Render larger" on an image without settings, or at the largest size, says why
// and queues nothing.
func TestRenderLargerRefusesWithReason(t *testing.T) {
	rn := largerRunner(t)
	for _, c := range []struct {
		meta *imageio.Metadata
		want string
	}{
		{nil, "no Kleinbild settings"},
		{&imageio.Metadata{Settings: schema.Settings{Prompt: "big", Width: 1792, Height: 1792, Seed: 1}}, "already at the largest size"},
		// Without its adapters the larger render would be another picture.
		{&imageio.Metadata{Settings: schema.Settings{Prompt: "styled", Width: 256, Height: 256, Seed: 1}, Adapters: []imageio.Adapter{{File: "style.safetensors", SHA256: "ab", Strength: 0.8}}}, "made with adapters (style.safetensors)"},
	} {
		if _, err := rn.renderLargerJob(gallery.Entry{HasMeta: c.meta != nil, Meta: derefMeta(c.meta)}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if rn.cur != nil || len(rn.Queue.Jobs) != 0 {
		t.Error("a refused render-larger started or queued a job")
	}
}

// Issue 29: "Render larger" makes the image's own request again (engine.MetadataRequest),
// so a size-stable image is rendered larger with size-stable noise (it used to get torch
// noise, and another composition), and an inpainted image becomes a plain text-to-image
// job with the picture as its reference.
func TestRenderLargerKeepsStableNoise(t *testing.T) {
	rn := largerRunner(t)
	for _, noise := range []string{engine.NoiseStable, engine.NoiseTorch} {
		meta := imageio.Metadata{Settings: schema.Settings{Prompt: "a lighthouse", Width: 256, Height: 192, Seed: 9, Steps: 3, Schedule: "linear", Noise: noise}}
		j, err := rn.renderLargerJob(gallery.Entry{File: "x.png", HasMeta: true, Meta: meta})
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
	j, err := rn.renderLargerJob(gallery.Entry{File: "y.png", HasMeta: true, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	if r := j.Req; r.Image != "" || r.Mask != "" || r.Strength != 0 || r.MaskCrop != 0 || r.Noise != engine.NoiseStable || len(r.References) != 1 {
		t.Errorf("render larger of an inpainted image: %+v", r)
	}
}
