package cli

import (
	"flag"
	"fmt"
	"image"
	"io"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
	"kleinbild/estimate"
)

// inpaintFlags are generate's inpainting and outpainting flags:
// --image IN.png --mask MASK.png [--strength S] [--mask-crop PX] [--keep-unmasked=false],
// --image IN.png --outpaint L,T,R,B, or --image IN.png [--strength S] alone (image to image:
// the whole picture repainted, as with an all-white mask). -i then adds one optional extra
// reference.
type inpaintFlags struct {
	image, mask, outpaint *string
	strength              *float64
	maskCrop              *int
	keepUnmasked          *bool
	pad                   inpaint.Padding // parsed --outpaint
	size                  image.Point     // --image's size, once check has read it
}

func addInpaintFlags(fs *flag.FlagSet) *inpaintFlags {
	return &inpaintFlags{
		image:        fs.String("image", "", "start from this picture: inpaint it (--mask), extend it (--outpaint) or, alone, repaint all of it from --strength; the output takes its size (or the canvas's), above 1 MP scaled to about 1 MP, floored to multiples of 16 (a note says so)"),
		mask:         fs.String("mask", "", "inpainting mask: white (grey >= 128) is repainted, black kept; resized and converted to grey if it differs from --image"),
		strength:     fs.Float64("strength", engine.DefaultStrength, "inpainting strength in (0, 1]: how far into the schedule the repaint starts (1: from pure noise)"),
		maskCrop:     fs.Int("mask-crop", 0, "repaint only the mask's box grown by PX pixels, at the image's size, and paste it back (0: the whole picture)"),
		keepUnmasked: fs.Bool("keep-unmasked", true, "paste the original's pixels back outside the mask, with a feathered seam"),
		outpaint:     fs.String("outpaint", "", "extend --image by L,T,R,B pixels on a grey canvas and paint the new area"),
	}
}

// check validates the inpainting flags (set: the flags given; refs: the -i images; sized:
// whether -W or -H was given) and, with --image, reads the image (and the mask) to check
// the outpainting canvas and to say on stderr how the mask will be converted. Flag
// problems are usage errors.
func (f *inpaintFlags) check(set map[string]bool, refs []string, sized, quiet bool, stderr io.Writer) error {
	if *f.image == "" {
		for _, name := range []string{"mask", "strength", "mask-crop", "keep-unmasked", "outpaint"} {
			if set[name] {
				return usageErr("--%s needs --image", name)
			}
		}
		return nil
	}
	switch {
	case *f.mask != "" && *f.outpaint != "":
		return usageErr("--mask and --outpaint exclude each other (outpainting builds its own mask)")
	case sized:
		return usageErr("-W and -H do not apply with --image: the output takes the image's size")
	case len(refs) > 1:
		return usageErr("-i: with --image at most one extra reference image is supported, %d given", len(refs))
	}
	if err := engine.ValidateStrength(*f.strength); err != nil {
		return usageErr("--strength: %v", err)
	}
	if *f.maskCrop < 0 {
		return usageErr("--mask-crop: %d px is negative (0 turns it off)", *f.maskCrop)
	}
	img, err := imageio.Load(*f.image)
	if err != nil {
		return fmt.Errorf("--image: %w", err)
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	f.size = image.Pt(w, h)
	if *f.outpaint != "" {
		if f.pad, err = inpaint.ParsePadding(*f.outpaint); err != nil {
			return usageErr("--outpaint: %v", err)
		}
		if f.pad.IsZero() {
			return usageErr("--outpaint 0,0,0,0 extends nothing")
		}
		if err := engine.CheckOutpaint(f.pad, w, h); err != nil {
			return usageErr("--outpaint: image %s: %v", *f.image, err)
		}
		if cw, ch := f.pad.Size(w, h); !quiet {
			sizeNote(stderr, inpaint.SizeNote(cw, ch, true, false))
		}
		return nil
	}
	if !quiet {
		sizeNote(stderr, inpaint.SizeNote(w, h, false, *f.maskCrop > 0))
	}
	if *f.mask == "" {
		return nil // image to image: the engine repaints the whole picture
	}
	mask, err := imageio.Load(*f.mask)
	if err != nil {
		return fmt.Errorf("--mask: %w", err)
	}
	if note := inpaint.MaskNote(mask, w, h); note != "" && !quiet {
		fmt.Fprintf(stderr, "Note: %s: %s (the image %s is %d×%d)\n", *f.mask, note, *f.image, w, h)
	}
	return nil
}

// sizeNote prints a result-size notice (inpaint.SizeNote) on stderr, if there is one.
func sizeNote(stderr io.Writer, note string) {
	if note != "" {
		fmt.Fprintf(stderr, "Note: %s\n", note)
	}
}

// fill sets the request's inpainting fields from the checked flags.
func (f *inpaintFlags) fill(req *engine.Request) {
	if *f.image == "" {
		return
	}
	req.Image, req.Mask, req.Outpaint = *f.image, *f.mask, engine.OutpaintOf(f.pad)
	req.Strength, req.MaskCrop, req.RawUnmasked = *f.strength, *f.maskCrop, !*f.keepUnmasked
}

// fitRequest is the request the fit check prices (fitDevice): req whole, with --image's
// size, which sets the output's.
func (f *inpaintFlags) fitRequest(req engine.Request) estimate.Request {
	return estimate.Request{Req: req, PictureSize: f.size}
}
