package vae

import (
	"fmt"
	"image"
	"math"
)

// checkLen panics with a descriptive message when a caller passes a slice that does not
// match the dimensions it states (a programming error, not bad data).
func checkLen(fn string, n, c, h, w int) {
	if c <= 0 || h <= 0 || w <= 0 || n != c*h*w {
		panic(fmt.Sprintf("vae.%s: %d values for shape [%d, %d, %d]", fn, n, c, h, w))
	}
}

// toUnit maps a decoded value to [0, 1] as VaeImageProcessor.postprocess does:
// (x/2 + 0.5).clamp(0, 1) in float32. NaN stays NaN.
func toUnit(x float32) float32 {
	v := float32(x/2) + 0.5
	if v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

// ToNP returns the postprocessed image [H, W, 3] in [0, 1] (the pipeline's output_type="np")
// for decoded [3, H, W]. It panics when len(decoded) != 3·H·W.
func ToNP(decoded []float32, H, W int) []float32 {
	checkLen("ToNP", len(decoded), 3, H, W)
	hw := H * W
	out := make([]float32, 3*hw)
	for c := range 3 {
		for p, x := range decoded[c*hw : (c+1)*hw] {
			out[p*3+c] = toUnit(x)
		}
	}
	return out
}

// ToRGB converts decoded [3, H, W] into an opaque 8-bit image the way numpy_to_pil does:
// round((x/2 + 0.5).clamp(0, 1) · 255) with the product in float32 and ties to even. NaN
// becomes 0. It panics when len(decoded) != 3·H·W.
func ToRGB(decoded []float32, H, W int) *image.NRGBA {
	checkLen("ToRGB", len(decoded), 3, H, W)
	img := image.NewNRGBA(image.Rect(0, 0, W, H))
	hw := H * W
	for y := range H {
		row := img.Pix[y*img.Stride : y*img.Stride+4*W]
		for x := range W {
			p := y*W + x
			for c := range 3 {
				row[4*x+c] = toByte(decoded[c*hw+p])
			}
			row[4*x+3] = 255
		}
	}
	return img
}

// toByte is numpy's (v*255).round().astype(uint8) for v = toUnit(x).
func toByte(x float32) uint8 {
	v := toUnit(x)
	if v != v {
		return 0
	}
	return uint8(math.RoundToEven(float64(float32(v * 255))))
}
