package engine

import (
	"fmt"
	"image"
	"path/filepath"
	"time"

	"kleinbild/engine/imageio"
)

// Metadata describes a finished generation for the PNG it is saved as: everything needed
// to reproduce it (prompt, seed, size, steps, guidance, schedule, model, references, adapters):
// MetadataRequest makes the request again.
func Metadata(info ModelInfo, req Request, res *Result, software string, took time.Duration) (imageio.Metadata, error) {
	meta := imageio.Metadata{
		Prompt:   req.Prompt,
		Seed:     res.Seed,
		Width:    res.WidthPx,
		Height:   res.HeightPx,
		Steps:    res.Steps,
		Guidance: res.Guidance,
		Schedule: res.Schedule,
		Noise:    res.Noise,
		Model:    filepath.Base(filepath.Clean(info.Dir)),
		Variant:  info.Variant(),
		Software: "kleinbild " + software,
		Created:  time.Now().UTC().Truncate(time.Second),
		Duration: took,
	}
	if !info.Distilled {
		meta.NegativePrompt = req.NegativePrompt
	}
	for _, f := range info.Files {
		meta.ModelFiles = append(meta.ModelFiles, imageio.ModelFile{Component: string(f.Component), File: filepath.Base(f.Path), Types: f.TypeList()})
	}
	for _, p := range req.References {
		sum, err := imageio.SHA256File(p)
		if err != nil {
			return meta, fmt.Errorf("reference %s: %w", p, err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		meta.References = append(meta.References, imageio.Reference{Path: abs, SHA256: sum})
	}
	var err error
	if req.Image != "" {
		if meta.Inpaint, err = inpaintMetadata(req, res); err != nil {
			return meta, err
		}
	}
	for _, w := range req.Adapters {
		sum, err := imageio.SHA256File(w.Adapter.Path)
		if err != nil {
			return meta, fmt.Errorf("adapter %s: %w", w.Adapter.Path, err)
		}
		meta.Adapters = append(meta.Adapters, imageio.Adapter{File: filepath.Base(w.Adapter.Path), SHA256: sum, Strength: w.Strength})
	}
	meta.AdaptersPartial = req.AdaptersPartial
	return meta, nil
}

// inpaintMetadata records an inpainting request: the image and the mask (paths and
// hashes), the mode and the settings.
func inpaintMetadata(req Request, res *Result) (*imageio.Inpaint, error) {
	ref := func(p string) (imageio.Reference, error) {
		sum, err := imageio.SHA256File(p)
		if err != nil {
			return imageio.Reference{}, err
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		return imageio.Reference{Path: abs, SHA256: sum}, nil
	}
	in := &imageio.Inpaint{Mode: req.Mode(), Strength: res.Strength, MaskCrop: req.MaskCrop, RawUnmasked: req.RawUnmasked}
	var err error
	if in.Image, err = ref(req.Image); err != nil {
		return nil, fmt.Errorf("image %s: %w", req.Image, err)
	}
	if req.Mask != "" {
		m, err := ref(req.Mask)
		if err != nil {
			return nil, fmt.Errorf("mask %s: %w", req.Mask, err)
		}
		in.Mask = &m
	}
	if o := req.Outpaint; !o.IsZero() {
		in.Outpaint = []int{o.Left, o.Top, o.Right, o.Bottom}
	}
	return in, nil
}

// SavePNG writes img with its metadata atomically (no partial file under path, ever).
func SavePNG(path string, img image.Image, meta imageio.Metadata) error {
	return imageio.WritePNG(path, img, meta)
}
