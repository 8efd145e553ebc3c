package engine

import (
	"fmt"
	"image"
	"maps"
	"path/filepath"
	"time"

	"kleinbild/engine/imageio"
)

// Sums are the SHA-256 sums of a request's input files by path (HashInputs), taken once
// before the run so that every image of it records the files as the run read them, not as
// they are once it is done.
type Sums map[string]string

// HashInputs hashes the files of req that its metadata records: the references, the image
// to inpaint, the mask and the adapters.
func HashInputs(req Request) (Sums, error) {
	s := Sums{}
	for _, p := range req.References {
		if err := s.Add(p); err != nil {
			return nil, fmt.Errorf("reference %w", err)
		}
	}
	if err := s.Add(req.Image); err != nil {
		return nil, fmt.Errorf("image %w", err)
	}
	if err := s.Add(req.Mask); err != nil {
		return nil, fmt.Errorf("mask %w", err)
	}
	for _, w := range req.Adapters {
		if err := s.Add(w.Adapter.Path); err != nil {
			return nil, fmt.Errorf("adapter %w", err)
		}
	}
	return s, nil
}

// Add hashes the files of paths that s does not hold yet ("" is skipped).
func (s Sums) Add(paths ...string) error {
	for _, p := range paths {
		if _, ok := s[p]; ok || p == "" {
			continue
		}
		sum, err := imageio.SHA256File(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		s[p] = sum
	}
	return nil
}

// Metadata describes a finished generation for the PNG it is saved as: everything needed
// to reproduce it (prompt, seed, size, steps, guidance, schedule, model, references, adapters):
// MetadataRequest makes the request again. sums are the input files' hashes taken before
// the run; files it lacks (all of them when nil) are hashed now.
func Metadata(info ModelInfo, req Request, sums Sums, res *Result, software string, took time.Duration) (imageio.Metadata, error) {
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
	all := Sums{}
	maps.Copy(all, sums)
	for _, p := range req.References {
		if err := all.Add(p); err != nil {
			return meta, fmt.Errorf("reference %w", err)
		}
		meta.References = append(meta.References, imageio.Reference{Path: absPath(p), SHA256: all[p]})
	}
	if req.Image != "" {
		var err error
		if meta.Inpaint, err = inpaintMetadata(req, all, res); err != nil {
			return meta, err
		}
	}
	for _, w := range req.Adapters {
		if err := all.Add(w.Adapter.Path); err != nil {
			return meta, fmt.Errorf("adapter %w", err)
		}
		meta.Adapters = append(meta.Adapters, imageio.Adapter{File: filepath.Base(w.Adapter.Path), SHA256: all[w.Adapter.Path], Strength: w.Strength})
	}
	meta.AdaptersPartial = req.AdaptersPartial
	return meta, nil
}

// absPath is p made absolute (p itself when it cannot be).
func absPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}

// inpaintMetadata records an inpainting request: the image and the mask (paths and
// hashes, from sums or taken now), the mode and the settings.
func inpaintMetadata(req Request, sums Sums, res *Result) (*imageio.Inpaint, error) {
	in := &imageio.Inpaint{Mode: req.Mode(), Strength: res.Strength, MaskCrop: req.MaskCrop, RawUnmasked: req.RawUnmasked}
	if err := sums.Add(req.Image); err != nil {
		return nil, fmt.Errorf("image %w", err)
	}
	in.Image = imageio.Reference{Path: absPath(req.Image), SHA256: sums[req.Image]}
	if req.Mask != "" {
		if err := sums.Add(req.Mask); err != nil {
			return nil, fmt.Errorf("mask %w", err)
		}
		in.Mask = &imageio.Reference{Path: absPath(req.Mask), SHA256: sums[req.Mask]}
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
