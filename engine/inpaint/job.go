package inpaint

import (
	"fmt"
	"image"

	"kleinbild/engine/vae"
)

// Inputs are the user's picture and mask prepared for inpainting, with what Finish needs to
// compose the final picture.
type Inputs struct {
	// Image is the picture at the processing size, Bin its binarised pixel mask (1 =
	// repaint) and Mask the token mask.
	Image RGB
	Bin   []uint8
	Mask  []float32
	// Crop is set when only a padded box around the mask is inpainted (padding_mask_crop).
	Crop *Crop
}

// Prepare preprocesses a picture and its mask as the pipeline does. cropPad < 0 inpaints
// the whole picture; cropPad >= 0 inpaints only the box around the mask grown by cropPad
// pixels (padding_mask_crop, "Inpaint only the masked area"), which needs a mask with at
// least one non-black pixel. An empty (all black) or full (all white) mask is otherwise
// allowed: the result is the VAE's reconstruction of the picture, or a full repaint
// conditioned on it.
func Prepare(img, mask image.Image, cropPad int) (Inputs, error) {
	var in Inputs
	if cropPad >= 0 {
		c, err := CropForMask(img, mask, cropPad)
		if err != nil {
			return Inputs{}, err
		}
		in.Crop = &c
		in.Image, in.Bin = c.Image, c.Mask
	} else {
		var err error
		if in.Image, err = Image(img); err != nil {
			return Inputs{}, err
		}
		if in.Bin, err = Mask(mask, in.Image.W, in.Image.H); err != nil {
			return Inputs{}, err
		}
	}
	var err error
	in.Mask, err = LatentMask(in.Bin, in.Image.W, in.Image.H)
	return in, err
}

// Finish turns the VAE's output [3, H, W] for these inputs into the final picture:
// 8-bit RGB like the pipeline's PIL output, then, with keepUnmasked, KeepUnmasked with the
// given feather against the preprocessed picture, and for a crop the paste back into the
// full picture (Crop.Overlay), whose size it then has.
func (in Inputs) Finish(decoded []float32, keepUnmasked bool, feather int) (*image.NRGBA, error) {
	w, h := in.Image.W, in.Image.H
	if len(decoded) != 3*w*h {
		return nil, fmt.Errorf("finish: %d decoded values for a %d×%d picture", len(decoded), w, h)
	}
	pic := vae.ToRGB(decoded, h, w)
	gen := RGB{Pix: make([]uint8, w*h*3), W: w, H: h}
	for i := 0; i < w*h; i++ {
		copy(gen.Pix[i*3:i*3+3], pic.Pix[i*4:i*4+3])
	}
	var err error
	if keepUnmasked {
		if gen, err = KeepUnmasked(in.Image, gen, in.Bin, feather); err != nil {
			return nil, err
		}
	}
	if in.Crop != nil {
		if gen, err = in.Crop.Overlay(gen); err != nil {
			return nil, err
		}
	}
	return gen.NRGBA(), nil
}

// MaskNote describes how a mask will be converted for a w×h picture, for a message to the
// user ("" when it already is a w×h grey image): a mask of another size is resized with
// LANCZOS, a colour one converted to grey (L), as the pipeline does.
func MaskNote(mask image.Image, w, h int) string {
	if mask == nil {
		return ""
	}
	b := mask.Bounds()
	var notes []string
	if b.Dx() != w || b.Dy() != h {
		notes = append(notes, fmt.Sprintf("resized from %d×%d to %d×%d (Lanczos)", b.Dx(), b.Dy(), w, h))
	}
	switch mask.(type) {
	case *image.Gray, *image.Gray16:
	default:
		notes = append(notes, "converted to greyscale (L)")
	}
	if len(notes) == 0 {
		return ""
	}
	msg := "mask " + notes[0]
	if len(notes) > 1 {
		msg += " and " + notes[1]
	}
	return msg + "; pixels of 128 or more are repainted"
}
