package engine

import (
	"image"
	"image/color"
)

// preview projects normalised, patchified latents [128, gh, gw] to a small RGB image at
// twice the grid resolution: VAE latent channels 0, 1, 2 (before patchify) as R, G, B with a
// fixed contrast. It is a cheap progress picture, not a decode, and reads only the first
// 12 channels of lat.
func (m *Model) preview(lat []float32, gh, gw int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 2*gw, 2*gh))
	plane := gh * gw
	for y := 0; y < gh; y++ {
		for x := 0; x < gw; x++ {
			for dy := 0; dy < 2; dy++ {
				for dx := 0; dx < 2; dx++ {
					var rgb [3]uint8
					for c := 0; c < 3; c++ {
						v := lat[(c*4+dy*2+dx)*plane+y*gw+x]
						rgb[c] = uint8(clampUnit(0.5+v/4)*255 + 0.5)
					}
					img.SetNRGBA(2*x+dx, 2*y+dy, color.NRGBA{rgb[0], rgb[1], rgb[2], 255})
				}
			}
		}
	}
	return img
}
