package cli

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/weights/golden"
)

// TestGenerateImageToImage: --image with a --strength and no --mask repaints the whole
// picture: the golden all-white-mask case (±1 level) with the pipeline's raw output, and
// pixel for pixel what --mask with an all-white mask gives at strength 0.6 with the
// default paste-back.
func TestGenerateImageToImage(t *testing.T) {
	const white = "mask_all_white_w64h48_distilled_s1.0_4steps"
	img, mask := golden.Path(t, "inpaint", white+"_image.png"), golden.Path(t, "inpaint", white+"_mask.png")
	tmp := t.TempDir()
	gen := func(name string, extra ...string) string {
		t.Helper()
		out := filepath.Join(tmp, name+".png")
		args := append([]string{"generate", "-d", golden.TinyModel(t), "-p", "A red cube on a blue table", "-s", "4", "-S", "407",
			"--image", img, "-o", out, "-q"}, extra...)
		if code, _, errOut := run(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		return out
	}
	meta := checkPNG(t, gen("whole", "--strength", "1", "--keep-unmasked=false"), white)
	if meta.Mode() != "img2img" || meta.Mask != "" || meta.Strength != 1 {
		t.Errorf("metadata %+v, want mode img2img with no mask", meta.Settings)
	}
	pixels := func(path string) string {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		im, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		b := im.Bounds()
		out := make([]byte, 0, 4*b.Dx()*b.Dy())
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, a := im.At(x, y).RGBA()
				out = append(out, byte(r>>8), byte(g>>8), byte(bl>>8), byte(a>>8))
			}
		}
		return string(out)
	}
	if pixels(gen("nomask", "--strength", "0.6")) != pixels(gen("whitemask", "--strength", "0.6", "--mask", mask)) {
		t.Error("--image --strength 0.6 differs from the same with an all-white --mask")
	}
}
