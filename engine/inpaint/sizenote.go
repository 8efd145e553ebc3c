package inpaint

import (
	"fmt"

	"kleinbild/engine/imageio"
)

// OutputSize is the size of the result of inpainting a w×h picture (or outpainting onto a
// w×h canvas) over the whole picture: Image's rule, the pipeline's (diffusers caps the
// area at about 1024² pixels, then floors the sides to multiples of 16, stretching). With
// --mask-crop the result keeps the picture's own size instead.
func OutputSize(w, h int) (ow, oh int) {
	_, _, ow, oh = imageio.TargetSize(w, h)
	return ow, oh
}

// SizeNote says, for a w×h picture to inpaint (canvas: an outpainting canvas), how the
// result's size differs from it, or "" when it does not: "the canvas is 4128×4096; the
// model works at 1 MP, so the result is 1024×1024". cropped (--mask-crop) keeps the size.
func SizeNote(w, h int, canvas, cropped bool) string {
	ow, oh := OutputSize(w, h)
	if cropped || ow == w && oh == h || ow == 0 || oh == 0 {
		return ""
	}
	what := "image"
	if canvas {
		what = "canvas"
	}
	why := fmt.Sprintf("the model works at 1 MP, so the result is %d×%d", ow, oh)
	if int64(w)*int64(h) <= imageio.MaxAreaPx {
		why = fmt.Sprintf("the model works in multiples of %d px, so the result is %d×%d (stretched)", Multiple, ow, oh)
	}
	return fmt.Sprintf("the %s is %d×%d; %s", what, w, h, why)
}
