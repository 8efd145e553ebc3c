package engine

import (
	"context"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/weights/golden"
)

// TestImageToImage: an image with a strength and no mask (ModeImageToImage) is, pixel for
// pixel, the inpainting pipeline with an all-white mask: against the golden all-white
// case (rel-L2 1e-4, max abs 1e-4·max|ref|, 8-bit ±1), and bit for bit against the same
// request given the case's mask file, at strength 1 and at 0.6 (a later start step).
func TestImageToImage(t *testing.T) {
	c := inpaintCases(t, "mask_all_white")[0]
	m := openModel(t, golden.TinyModel(t))
	run := func(mask string, strength float64) (*Result, map[string][]float32, imageio.Metadata) {
		t.Helper()
		d := map[string][]float32{}
		req := c.request(t, d)
		req.Mask, req.Strength = mask, strength
		res, err := m.Generate(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := Metadata(m.Info(), req, nil, res, "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		return res, d, meta
	}
	res, d, meta := run("", c.Strength)
	if meta.Mode() != ModeImageToImage || meta.Mask != "" || meta.Image == "" {
		t.Errorf("metadata %+v, want mode %q with no mask", meta.Settings, ModeImageToImage)
	}
	f := golden.Open(t, "inpaint/"+c.name+".safetensors")
	final, shape := golden.F32(t, f, "final_latents_packed")
	compareInpaint(t, "final latents", d["latents_final"], unpack(final, latentChannels, shape[1]))
	u8, err := f.Tensor("image_uint8")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := u8.Uint8()
	checkImage(t, "8-bit image", res.Image, want)

	maskFile := golden.Path(t, "inpaint", c.MaskPNG)
	for _, strength := range []float64{1, 0.6} {
		got, _, _ := run("", strength)
		masked, _, _ := run(maskFile, strength)
		if string(got.Image.Pix) != string(masked.Image.Pix) {
			t.Errorf("strength %v: no mask and an all-white mask give different pictures", strength)
		}
	}
	// The mask the case gives is all white: check, so that the comparison means something.
	mimg, err := imageio.Load(maskFile)
	if err != nil {
		t.Fatal(err)
	}
	b := mimg.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := mimg.At(x, y).RGBA(); r>>8 < 128 {
				t.Fatalf("the golden all-white mask has a dark pixel at %d,%d", x, y)
			}
		}
	}
}
