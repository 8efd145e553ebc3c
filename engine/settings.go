package engine

import (
	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
)

// Settings are a Request as it is saved: in a queued job (the app's queue.json, in this
// layout) or, through Metadata, in an image's PNG. Settings.Request makes the request
// again, in one place for every front end (Render larger, Reuse settings, inpainting's
// reuse, the queue). What a Request holds only while it runs is not saved: the latents,
// the prompt embeddings, the dump and the opened adapters (a queue keeps their files, an
// image their names and hashes).
type Settings struct {
	Prompt          string   `json:"prompt"`
	NegativePrompt  string   `json:"negative_prompt,omitempty"`
	Width           int      `json:"width,omitempty"`
	Height          int      `json:"height,omitempty"`
	Steps           int      `json:"steps,omitempty"`
	Seed            uint64   `json:"seed"`
	Guidance        float64  `json:"guidance,omitempty"`
	Schedule        string   `json:"schedule,omitempty"`
	Noise           string   `json:"noise,omitempty"`
	References      []string `json:"references,omitempty"`
	AdaptersPartial bool     `json:"adapters_partial,omitempty"`
	Image           string   `json:"image,omitempty"`
	Mask            string   `json:"mask,omitempty"`
	Strength        float64  `json:"strength,omitempty"`
	MaskCrop        int      `json:"mask_crop,omitempty"`
	RawUnmasked     bool     `json:"raw_unmasked,omitempty"`
	Outpaint        *[4]int  `json:"outpaint,omitempty"` // left, top, right, bottom px
}

// SettingsOf is the saved form of req.
func SettingsOf(req Request) Settings {
	s := Settings{
		Prompt: req.Prompt, NegativePrompt: req.NegativePrompt, Width: req.WidthPx, Height: req.HeightPx, Steps: req.Steps, Seed: req.Seed,
		Guidance: req.Guidance, Schedule: req.Schedule, Noise: req.Noise, References: req.References,
		AdaptersPartial: req.AdaptersPartial, Image: req.Image, Mask: req.Mask,
		Strength: req.Strength, MaskCrop: req.MaskCrop, RawUnmasked: req.RawUnmasked,
	}
	if o := req.Outpaint; !o.IsZero() {
		s.Outpaint = &[4]int{o.Left, o.Top, o.Right, o.Bottom}
	}
	return s
}

// MetadataSettings are the settings an image's metadata records (see Metadata): the
// size, steps, guidance and noise it was made with, the references' and the repainted
// picture's paths. Adapters are left to the caller (the metadata names them by hash).
func MetadataSettings(m imageio.Metadata) Settings {
	s := Settings{
		Prompt: m.Prompt, NegativePrompt: m.NegativePrompt, Width: m.Width, Height: m.Height, Steps: m.Steps, Seed: m.Seed,
		Guidance: m.Guidance, Schedule: m.Schedule, Noise: m.Noise, AdaptersPartial: m.AdaptersPartial,
	}
	for _, r := range m.References {
		s.References = append(s.References, r.Path)
	}
	if in := m.Inpaint; in != nil {
		s.Image, s.Strength, s.MaskCrop, s.RawUnmasked = in.Image.Path, in.Strength, in.MaskCrop, in.RawUnmasked
		if in.Mask != nil {
			s.Mask = in.Mask.Path
		}
		if len(in.Outpaint) == 4 {
			s.Outpaint = &[4]int{in.Outpaint[0], in.Outpaint[1], in.Outpaint[2], in.Outpaint[3]}
		}
	}
	return s
}

// MetadataRequest is the request that made an image, from its metadata:
// MetadataSettings(m).Request().
func MetadataRequest(m imageio.Metadata) Request { return MetadataSettings(m).Request() }

// Request is the request s saves (without adapters: see Settings).
func (s Settings) Request() Request {
	req := Request{
		Prompt: s.Prompt, NegativePrompt: s.NegativePrompt, WidthPx: s.Width, HeightPx: s.Height, Steps: s.Steps, Seed: s.Seed,
		Guidance: s.Guidance, Schedule: s.Schedule, Noise: s.Noise, References: s.References,
		AdaptersPartial: s.AdaptersPartial, Image: s.Image, Mask: s.Mask,
		Strength: s.Strength, MaskCrop: s.MaskCrop, RawUnmasked: s.RawUnmasked,
	}
	if o := s.Outpaint; o != nil {
		req.Outpaint = inpaint.Padding{Left: o[0], Top: o[1], Right: o[2], Bottom: o[3]}
	}
	return req
}
