package engine

import (
	"errors"
	"fmt"
	"image"

	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
	"kleinbild/engine/schema"
)

// DefaultStrength is the inpainting strength when a request gives none (the pipeline's
// default).
const DefaultStrength = 0.8

// The modes of a generation, as PNG metadata records them.
const (
	ModeInpaint  = schema.ModeInpaint
	ModeOutpaint = schema.ModeOutpaint
	// ModeImageToImage repaints the whole image from Strength: inpainting with no mask,
	// which is exactly inpainting with an all-white mask.
	ModeImageToImage = schema.ModeImageToImage
)

// ValidateStrength checks an inpainting strength given by a user: a number in (0, 1].
// (Request.Strength 0 picks DefaultStrength; the CLI and the app refuse 0.)
func ValidateStrength(s float64) error {
	if s > 0 && s <= 1 { // false for NaN
		return nil
	}
	return fmt.Errorf("strength %v is out of range: use a number in (0, 1] (1 repaints from pure noise)", s)
}

// checkInpaint checks the inpainting fields of a request before any file is read.
func checkInpaint(req Request) error {
	if req.Image == "" {
		if req.Mask != "" || req.Strength != 0 || req.MaskCrop != 0 || req.RawUnmasked || !req.Padding().IsZero() {
			return errors.New("a mask, strength, mask crop, raw-unmasked or outpainting setting needs an image to inpaint")
		}
		return nil
	}
	if req.Mask != "" && !req.Padding().IsZero() {
		return fmt.Errorf("inpainting %s: give a mask or outpainting padding, not both (outpainting builds its own mask)", req.Image)
	}
	if len(req.References) > 1 {
		return fmt.Errorf("inpainting %s: %d reference images given, at most one extra reference is supported", req.Image, len(req.References))
	}
	if req.Strength != 0 {
		if err := ValidateStrength(req.Strength); err != nil {
			return err
		}
	}
	if req.MaskCrop < 0 || req.MaskCrop > EngineMaxSidePx {
		return fmt.Errorf("mask crop padding %d px is out of range: use 0 (off) to %d", req.MaskCrop, EngineMaxSidePx)
	}
	// Negative sides and sides over the limit; the canvas is checked once the image's size
	// is known (loadInpaint).
	return req.Padding().Validate(0, 0, EngineMaxSidePx)
}

// inpaintInput is an inpainting request's pictures, read and prepared as the pipeline
// does, and its optional extra reference.
type inpaintInput struct {
	in  inpaint.Inputs
	ref *inpaint.RGB
}

// CheckOutpaint checks outpainting padding p for a w×h picture: the canvas may have at
// most EngineMaxSidePx per side (it is then brought to about a megapixel, as any image to
// inpaint).
func CheckOutpaint(p inpaint.Padding, w, h int) error {
	return p.Validate(w, h, EngineMaxSidePx)
}

// loadInpaint reads the request's image and mask (or builds the outpainting canvas and
// mask), prepares them, and reads the extra reference; nil for text-to-image.
func loadInpaint(req Request) (*inpaintInput, error) {
	if req.Image == "" {
		return nil, nil
	}
	img, err := imageio.Load(req.Image)
	if err != nil {
		return nil, fmt.Errorf("image to inpaint: %w", err)
	}
	var mask image.Image
	switch {
	case req.Mode() == ModeImageToImage:
		mask = wholeMask(img.Bounds())
	case req.Padding().IsZero():
		if mask, err = imageio.Load(req.Mask); err != nil {
			return nil, fmt.Errorf("mask: %w", err)
		}
	default:
		b := img.Bounds()
		if err := CheckOutpaint(req.Padding(), b.Dx(), b.Dy()); err != nil {
			return nil, fmt.Errorf("image %s: %w", req.Image, err)
		}
		canvas, m, err := inpaint.Outpaint(img, req.Padding())
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", req.Image, err)
		}
		img, mask = canvas.NRGBA(), inpaint.GrayImage(m, canvas.W, canvas.H)
	}
	crop := -1 // the whole picture
	if req.MaskCrop > 0 {
		crop = req.MaskCrop
	}
	in, err := inpaint.Prepare(img, mask, crop)
	if err != nil {
		if req.Mask != "" {
			return nil, fmt.Errorf("image %s with mask %s: %w", req.Image, req.Mask, err)
		}
		return nil, fmt.Errorf("image %s: %w", req.Image, err)
	}
	inp := &inpaintInput{in: in}
	if len(req.References) == 1 {
		path := req.References[0]
		src, err := imageio.Load(path)
		if err != nil {
			return nil, fmt.Errorf("reference 1: %w", err)
		}
		ref, err := inpaint.Reference(src)
		if err != nil {
			return nil, fmt.Errorf("reference 1 (%s): %w", path, err)
		}
		inp.ref = &ref
	}
	return inp, nil
}

// references are the conditioning images of an inpainting run: the prepared image (T =
// 10), then the extra reference (T = 20).
func (inp *inpaintInput) references() []reference {
	img := inp.in.Image
	refs := []reference{{imageio.ToTensor(img.Pix, img.W, img.H), img.W, img.H}}
	if r := inp.ref; r != nil {
		refs = append(refs, reference{imageio.ToTensor(r.Pix, r.W, r.H), r.W, r.H})
	}
	return refs
}

// wholeMask is image-to-image's mask: every pixel of r repainted (white).
func wholeMask(r image.Rectangle) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	for i := range m.Pix {
		m.Pix[i] = 0xff
	}
	return m
}
