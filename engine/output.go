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

// Metadata describes a finished generation for the PNG it is saved as: the settings that
// made it (req's, with what the run used: seed, size, steps, guidance, schedule, noise,
// strength; the input files' paths absolute; MetadataRequest makes the request again) and
// beside them the provenance: the model, the input files' and adapters' hashes, the
// software and the times. sums are the input files' hashes taken before the run; files it
// lacks (all of them when nil) are hashed now.
func Metadata(info ModelInfo, req Request, sums Sums, res *Result, software string, took time.Duration) (imageio.Metadata, error) {
	s := SettingsOf(req)
	s.Seed, s.Width, s.Height, s.Steps = res.Seed, res.WidthPx, res.HeightPx, res.Steps
	s.Guidance, s.Schedule, s.Noise = res.Guidance, res.Schedule, res.Noise
	if info.Distilled {
		s.NegativePrompt = "" // distilled models run no CFG
	}
	s.References = nil
	if s.Image == "" { // the inpainting settings apply to inpainting only
		s.Strength, s.MaskCrop, s.RawUnmasked, s.Mask, s.Outpaint = 0, 0, false, "", nil
	} else {
		s.Strength = res.Strength
	}
	meta := imageio.Metadata{
		Settings: s,
		Model:    filepath.Base(filepath.Clean(info.Dir)),
		Variant:  info.Variant(),
		Software: "kleinbild " + software,
		Created:  time.Now().UTC().Truncate(time.Second),
		Duration: took,
	}
	for _, f := range info.Files {
		meta.ModelFiles = append(meta.ModelFiles, imageio.ModelFile{Component: string(f.Component), File: filepath.Base(f.Path), Types: f.TypeList()})
	}
	all := Sums{}
	maps.Copy(all, sums)
	record := func(what, p string) (string, error) {
		if err := all.Add(p); err != nil {
			return "", fmt.Errorf("%s %w", what, err)
		}
		abs := absPath(p)
		if meta.Hashes == nil {
			meta.Hashes = map[string]string{}
		}
		meta.Hashes[abs] = all[p]
		return abs, nil
	}
	for _, p := range req.References {
		abs, err := record("reference", p)
		if err != nil {
			return meta, err
		}
		meta.References = append(meta.References, abs)
	}
	var err error
	if meta.Image != "" {
		if meta.Image, err = record("image", req.Image); err != nil {
			return meta, err
		}
	}
	if meta.Mask != "" {
		if meta.Mask, err = record("mask", req.Mask); err != nil {
			return meta, err
		}
	}
	for _, w := range req.Adapters {
		if err := all.Add(w.Adapter.Path); err != nil {
			return meta, fmt.Errorf("adapter %w", err)
		}
		meta.Adapters = append(meta.Adapters, imageio.Adapter{File: filepath.Base(w.Adapter.Path), SHA256: all[w.Adapter.Path], Strength: w.Strength})
	}
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

// SavePNG writes img with its metadata atomically (no partial file under path, ever).
func SavePNG(path string, img image.Image, meta imageio.Metadata) error {
	return imageio.WritePNG(path, img, meta)
}
