// Package inpaint holds the parts of FLUX.2-klein inpainting and outpainting that are
// independent of the models, exact to diffusers' Flux2KleinInpaintPipeline (0.40.0.dev0,
// described line by line in shared/golden/inpaint/README.md): image, mask and reference
// preprocessing, the mask on the 16-px token grid, the strength -> start step rule, the
// start latents and the per-step blend with the re-noised original, padding_mask_crop's
// crop box and paste-back, outpainting canvases, and the feathered "keep the unmasked
// pixels" composite. engine.Model.Generate runs them in its stages (Request.Image).
//
// Latent tensors are packed tokens [N, 128] (row-major over the H/16 × W/16 grid, the
// transformer's layout) unless a function says otherwise; pixel buffers are HWC bytes.
package inpaint

import (
	"errors"
	"fmt"
	"image"

	"kleinbild/engine/imageio"
)

// Multiple is what the image's sides are floored to (vae_scale_factor·2).
const Multiple = 16

// RGB is an 8-bit RGB picture, HWC bytes.
type RGB struct {
	Pix  []uint8
	W, H int
}

// Image preprocesses the picture to inpaint (P:989-1019): above 1024² pixels it is first
// resized to about that area with LANCZOS (int(w·s), int(h·s)), then its sides are floored
// to multiples of 16 and it is resized to that size with LANCZOS (stretched, not cropped;
// unchanged when already a multiple), then converted to RGB. The output image has this
// size.
func Image(img image.Image) (RGB, error) {
	p, err := imageio.NewPillow(img)
	if err != nil {
		return RGB{}, fmt.Errorf("image: %w", err)
	}
	w, h := p.Size()
	rw, rh, ow, oh := imageio.TargetSize(w, h)
	if ow == 0 || oh == 0 {
		return RGB{}, fmt.Errorf("image is %d×%d: both sides must be at least %d px", w, h, Multiple)
	}
	if rw != w || rh != h {
		p = p.Resize(rw, rh)
	}
	p = p.Resize(ow, oh)
	return RGB{Pix: p.RGB(), W: ow, H: oh}, nil
}

// Reference preprocesses the optional extra reference image (P:1021-1059): the same
// 1024² rule, then a centre crop (no resize) to multiples of 16, then RGB. Its own size is
// kept. Unlike the text-to-image pipeline's references, no minimum side or aspect limit
// applies.
func Reference(img image.Image) (RGB, error) {
	p, err := imageio.NewPillow(img)
	if err != nil {
		return RGB{}, fmt.Errorf("reference: %w", err)
	}
	w, h := p.Size()
	rw, rh, ow, oh := imageio.TargetSize(w, h)
	if ow == 0 || oh == 0 {
		return RGB{}, fmt.Errorf("reference image is %d×%d: both sides must be at least %d px", w, h, Multiple)
	}
	if rw != w || rh != h {
		p = p.Resize(rw, rh)
	}
	left, top := (rw-ow)/2, (rh-oh)/2
	p = p.Crop(image.Rect(left, top, left+ow, top+oh))
	return RGB{Pix: p.RGB(), W: ow, H: oh}, nil
}

// Mask preprocesses the mask for a w×h image (P:1144-1146, V:523-538): resized with
// LANCZOS to w×h in its own mode (any size is accepted), converted to L, then binarised
// per pixel: 1 (repaint) where L >= 128, else 0 (keep). The result has w·h values.
func Mask(mask image.Image, w, h int) ([]uint8, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("mask target size %d×%d is empty", w, h)
	}
	p, err := imageio.NewPillow(mask)
	if err != nil {
		return nil, fmt.Errorf("mask: %w", err)
	}
	return Binarize(p.Resize(w, h).L()), nil
}

// Binarize maps L bytes to 0/1 at the pipeline's threshold (u8/255 >= 0.5, i.e. >= 128).
func Binarize(l []uint8) []uint8 {
	out := make([]uint8, len(l))
	for i, v := range l {
		if v >= 128 {
			out[i] = 1
		}
	}
	return out
}

// LatentMask brings a binarised w×h pixel mask to the token grid (P:663-694): bilinear
// interpolation (align_corners=False) by the exact factor 16 samples each cell at pixel
// coordinate 16r+7.5, i.e. the mean of the four pixels at rows 16r+7, 16r+8 and columns
// 16c+7, 16c+8. The result is one weight per token, (h/16)·(w/16) values in {0, 0.25, 0.5,
// 0.75, 1}, row-major.
func LatentMask(bin []uint8, w, h int) ([]float32, error) {
	if w%Multiple != 0 || h%Multiple != 0 || w <= 0 || h <= 0 {
		return nil, fmt.Errorf("mask size %d×%d is not a positive multiple of %d", w, h, Multiple)
	}
	if len(bin) != w*h {
		return nil, fmt.Errorf("mask has %d values, want %d×%d", len(bin), w, h)
	}
	gw, gh := w/Multiple, h/Multiple
	out := make([]float32, gw*gh)
	for r := 0; r < gh; r++ {
		for c := 0; c < gw; c++ {
			y, x := 16*r+7, 16*c+7
			a := float32(bin[y*w+x])
			b := float32(bin[y*w+x+1])
			d := float32(bin[(y+1)*w+x])
			e := float32(bin[(y+1)*w+x+1])
			// torch: h0λ·(w0λ·x00 + w1λ·x01) + h1λ·(w0λ·x10 + w1λ·x11), all λ = 0.5 (exact).
			out[r*gw+c] = 0.5*(0.5*a+0.5*b) + 0.5*(0.5*d+0.5*e)
		}
	}
	return out, nil
}

// errNoSteps is returned when a strength leaves no denoising step.
var errNoSteps = errors.New("strength leaves no denoising step")
