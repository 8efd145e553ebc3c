package inpaint

import (
	"errors"
	"fmt"
	"image"

	"kleinbild/engine/imageio"
)

// CropRegion is VaeImageProcessor.get_crop_region (V:288-375) on a mask given as L bytes
// (mw×mh): the bounding box of the non-zero pixels (any non-zero value counts, no
// binarisation), grown by pad on each side and clamped to the mask, then widened (or
// heightened) around its centre to the aspect w/h of the processing size and shifted back
// inside the mask, with Python's int() truncations. An all-zero mask has no region (the
// pipeline divides by zero there); it is an error.
func CropRegion(l []uint8, mw, mh, w, h, pad int) (image.Rectangle, error) {
	if len(l) != mw*mh || mw <= 0 || mh <= 0 {
		return image.Rectangle{}, fmt.Errorf("mask has %d values, want %d×%d", len(l), mw, mh)
	}
	if w <= 0 || h <= 0 || pad < 0 {
		return image.Rectangle{}, fmt.Errorf("crop region: processing size %d×%d, padding %d", w, h, pad)
	}
	left, top, right, bottom := mw, mh, -1, -1
	for y := 0; y < mh; y++ {
		for x, v := range l[y*mw : (y+1)*mw] {
			if v != 0 {
				left, right = min(left, x), max(right, x)
				top, bottom = min(top, y), max(bottom, y)
			}
		}
	}
	if right < 0 {
		return image.Rectangle{}, errors.New("the mask is empty (all black): there is no region to inpaint")
	}
	// crop_right/crop_bottom count the zero columns/rows from the far side.
	x1, y1 := max(left-pad, 0), max(top-pad, 0)
	x2, y2 := min(right+1+pad, mw), min(bottom+1+pad, mh)

	ratioCrop := float64(x2-x1) / float64(y2-y1)
	ratioProc := float64(w) / float64(h)
	if ratioCrop > ratioProc {
		desired := float64(x2-x1) / ratioProc
		diff := int(desired - float64(y2-y1))
		y1 -= floorDiv(diff, 2)
		y2 += diff - floorDiv(diff, 2)
		if y2 >= mh {
			d := y2 - mh
			y2 -= d
			y1 -= d
		}
		if y1 < 0 {
			y2 -= y1
			y1 = 0
		}
		if y2 >= mh {
			y2 = mh
		}
	} else {
		desired := float64(y2-y1) * ratioProc
		diff := int(desired - float64(x2-x1))
		x1 -= floorDiv(diff, 2)
		x2 += diff - floorDiv(diff, 2)
		if x2 >= mw {
			d := x2 - mw
			x2 -= d
			x1 -= d
		}
		if x1 < 0 {
			x2 -= x1
			x1 = 0
		}
		if x2 >= mw {
			x2 = mw
		}
	}
	return image.Rect(x1, y1, x2, y2), nil
}

// floorDiv is Python's a // b for b > 0.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// resizeFill is VaeImageProcessor._resize_and_fill (V:377-427) followed by convert("RGB"):
// p is resized with LANCZOS to fit w×h keeping its aspect, pasted centred on a black RGB
// canvas, and the uncovered borders are filled from a zero-width box at the picture's
// edge (Pillow's BICUBIC over that box: 1.125·edge − 0.125·neighbour row or column).
func resizeFill(p imageio.Pillow, w, h int) []uint8 {
	iw, ih := p.Size()
	ratio := float64(w) / float64(h)
	srcRatio := float64(iw) / float64(ih)
	srcW, srcH := w, h
	if !(ratio < srcRatio) {
		srcW = iw * h / ih
	}
	if !(ratio >= srcRatio) {
		srcH = ih * w / iw
	}
	srcW, srcH = max(srcW, 1), max(srcH, 1)
	rs := p.Resize(srcW, srcH).RGB()
	out := make([]uint8, w*h*3)
	ox, oy := w/2-srcW/2, h/2-srcH/2
	paste(out, w, h, rs, srcW, srcH, ox, oy)
	switch {
	case ratio < srcRatio:
		if fill := h/2 - srcH/2; fill > 0 {
			top := edgeRow(rs, srcW, srcH, true)
			bottom := edgeRow(rs, srcW, srcH, false)
			for y := 0; y < fill; y++ {
				paste(out, w, h, top, srcW, 1, 0, y)
				paste(out, w, h, bottom, srcW, 1, 0, fill+srcH+y)
			}
		}
	case ratio > srcRatio:
		if fill := w/2 - srcW/2; fill > 0 {
			left := edgeCol(rs, srcW, srcH, true)
			right := edgeCol(rs, srcW, srcH, false)
			for x := 0; x < fill; x++ {
				paste(out, w, h, left, 1, srcH, x, 0)
				paste(out, w, h, right, 1, srcH, fill+srcW+x, 0)
			}
		}
	}
	return out
}

// paste copies the sw×sh RGB picture src into dst (w×h) at (ox, oy), clipped.
func paste(dst []uint8, w, h int, src []uint8, sw, sh, ox, oy int) {
	for y := 0; y < sh; y++ {
		dy := y + oy
		if dy < 0 || dy >= h {
			continue
		}
		for x := 0; x < sw; x++ {
			dx := x + ox
			if dx < 0 || dx >= w {
				continue
			}
			copy(dst[(dy*w+dx)*3:(dy*w+dx)*3+3], src[(y*sw+x)*3:(y*sw+x)*3+3])
		}
	}
}

// Pillow's BICUBIC weights (a = −0.5) for a zero-width box at an edge of an axis: the
// filter at 0.5 for the edge pixel and at 1.5 for its neighbour, normalised to 1.125 and
// −0.125, in 22-bit fixed point (the neighbour is dropped when the axis has one pixel).
const (
	edgeK0 = 4718592 // 1.125·2²²
	edgeK1 = -524288 // −0.125·2²²
)

// edgeMix is Pillow's fixed-point sum k0·a + k1·b, rounded and clipped to a byte.
func edgeMix(a, b uint8, single bool) uint8 {
	if single {
		return a
	}
	v := int32(1<<21) + int32(a)*edgeK0 + int32(b)*edgeK1
	v >>= 22
	return uint8(min(max(v, 0), 255))
}

// edgeRow is resize((w, 1), box=(0, e, w, e)) of a w×h RGB picture, e = 0 (first) or h:
// the edge row mixed with its neighbour.
func edgeRow(rgb []uint8, w, h int, first bool) []uint8 {
	e, nb := 0, min(1, h-1)
	if !first {
		e, nb = h-1, max(h-2, 0)
	}
	out := make([]uint8, w*3)
	for i := range out {
		out[i] = edgeMix(rgb[e*w*3+i], rgb[nb*w*3+i], h == 1)
	}
	return out
}

// edgeCol is resize((1, h), box=(e, 0, e, h)), e = 0 (first) or w: the edge column mixed
// with its neighbour.
func edgeCol(rgb []uint8, w, h int, first bool) []uint8 {
	e, nb := 0, min(1, w-1)
	if !first {
		e, nb = w-1, max(w-2, 0)
	}
	out := make([]uint8, h*3)
	for y := 0; y < h; y++ {
		for c := 0; c < 3; c++ {
			out[y*3+c] = edgeMix(rgb[(y*w+e)*3+c], rgb[(y*w+nb)*3+c], w == 1)
		}
	}
	return out
}

// Crop is the padding_mask_crop preparation: only a padded box around the mask is
// inpainted, at the processing size, and pasted back into the full picture afterwards.
type Crop struct {
	// Box is the region of the original picture that is inpainted (crops_coords).
	Box image.Rectangle
	// Image is the box's content "fill"-resized to the processing size (the pipeline's
	// image), Mask its binarised mask at that size.
	Image RGB
	Mask  []uint8
	// Original is the full picture, OriginalMask its mask as L bytes (same size): the
	// paste-back (Overlay) composites them over the generated box.
	Original     RGB
	OriginalMask []uint8
}

// CropForMask prepares padding_mask_crop = pad (P:1009-1019, 1144-1146): the processing
// size is the image's (floored to 16, after the 1024² rule), the box is CropRegion of the
// raw mask, and the image and the mask are cropped to the box and "fill"-resized to the
// processing size; the mask is then converted to L and binarised.
//
// The pipeline needs the mask to have the image's size (apply_overlay pastes with it); a
// mask of another size is first resized to the image's with LANCZOS. Above 1024² pixels the
// box is cut from the full-resolution picture and pasted back into it (the pipeline would
// crop the already downscaled picture with the full-size box).
func CropForMask(img, mask image.Image, pad int) (Crop, error) {
	if pad < 0 {
		return Crop{}, fmt.Errorf("mask crop padding %d px is negative", pad)
	}
	pi, err := imageio.NewPillow(img)
	if err != nil {
		return Crop{}, fmt.Errorf("image: %w", err)
	}
	pm, err := imageio.NewPillow(mask)
	if err != nil {
		return Crop{}, fmt.Errorf("mask: %w", err)
	}
	iw, ih := pi.Size()
	if mw, mh := pm.Size(); mw != iw || mh != ih {
		pm = pm.Resize(iw, ih)
	}
	_, _, w, h := imageio.TargetSize(iw, ih)
	if w == 0 || h == 0 {
		return Crop{}, fmt.Errorf("image is %d×%d: both sides must be at least %d px", iw, ih, Multiple)
	}
	ml := pm.L()
	box, err := CropRegion(ml, iw, ih, w, h, pad)
	if err != nil {
		return Crop{}, err
	}
	cm := imageio.NewPillowRGB(resizeFill(pm.Crop(box), w, h), w, h)
	return Crop{
		Box:          box,
		Image:        RGB{Pix: resizeFill(pi.Crop(box), w, h), W: w, H: h},
		Mask:         Binarize(cm.L()),
		Original:     RGB{Pix: pi.RGB(), W: iw, H: ih},
		OriginalMask: ml,
	}, nil
}

// Overlay is apply_overlay (V:788-833) for a crop: the generated picture (the processing
// size) is centre-cropped (not resized) to the box size, pasted at the box on a black
// canvas of the original's size, and the original is alpha-composited on top with alpha
// 255 − L(mask), in Pillow's integer arithmetic. Where the raw mask is 0 the result is the
// original, where it is 255 the generated picture (inside the box; black outside it).
func (c Crop) Overlay(gen RGB) (RGB, error) {
	w, h := c.Original.W, c.Original.H
	if len(c.Original.Pix) != w*h*3 || len(c.OriginalMask) != w*h || len(gen.Pix) != gen.W*gen.H*3 {
		return RGB{}, errors.New("overlay: inconsistent picture sizes")
	}
	bw, bh := c.Box.Dx(), c.Box.Dy()
	left, top := floorDiv(gen.W-bw, 2), floorDiv(gen.H-bh, 2)
	base := make([]uint8, w*h*3)
	for y := 0; y < bh; y++ {
		sy, dy := y+top, y+c.Box.Min.Y
		if sy < 0 || sy >= gen.H || dy < 0 || dy >= h {
			continue
		}
		for x := 0; x < bw; x++ {
			sx, dx := x+left, x+c.Box.Min.X
			if sx < 0 || sx >= gen.W || dx < 0 || dx >= w {
				continue
			}
			copy(base[(dy*w+dx)*3:(dy*w+dx)*3+3], gen.Pix[(sy*gen.W+sx)*3:])
		}
	}
	out := make([]uint8, w*h*3)
	for i := 0; i < w*h; i++ {
		m := 255 - uint32(c.OriginalMask[i])
		var src [3]uint32
		for ch := 0; ch < 3; ch++ {
			// paste with mask onto a zero RGBa canvas, then RGBa -> RGBA.
			v := muldiv255(uint32(c.Original.Pix[i*3+ch]), m)
			if m != 0 && m != 255 {
				v = min(255*v/m, 255)
			}
			src[ch] = v
		}
		sa := muldiv255(255, m)
		for ch := 0; ch < 3; ch++ {
			out[i*3+ch] = alphaOver(src[ch], sa, uint32(base[i*3+ch]))
		}
	}
	return RGB{Pix: out, W: w, H: h}, nil
}

// muldiv255 is Pillow's MULDIV255 / DIV255 blend: a·b/255 rounded.
func muldiv255(a, b uint32) uint32 {
	t := a*b + 128
	return ((t >> 8) + t) >> 8
}

// alphaOver is Pillow's alpha_composite of a source value s with alpha sa over an opaque
// destination value d (AlphaComposite.c, 7 extra bits of precision).
func alphaOver(s, sa, d uint32) uint8 {
	if sa == 0 {
		return uint8(d)
	}
	const prec = 7
	blend := 255 * (255 - sa)
	outa255 := sa*255 + blend
	coef1 := sa * 255 * 255 * (1 << prec) / outa255
	coef2 := 255*(1<<prec) - coef1
	t := s*coef1 + d*coef2 + (0x80 << prec)
	return uint8((((t >> 8) + t) >> 8) >> prec)
}
