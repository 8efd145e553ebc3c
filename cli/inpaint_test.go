package cli

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/weights/golden"
)

// checkPNG compares the PNG at path with a golden/inpaint case's 8-bit output: same size,
// every value within one level. It returns the file's metadata.
func checkPNG(t *testing.T, path, goldenCase string) imageio.Metadata {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	u8, err := golden.Open(t, "inpaint/"+goldenCase+".safetensors").Tensor("image_uint8")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := u8.Uint8()
	h, w := u8.Shape[0], u8.Shape[1]
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("output %v, want %d×%d", b, w, h)
	}
	worst := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			for ch, v := range []uint32{r >> 8, g >> 8, b >> 8} {
				worst = max(worst, abs(int(v)-int(want[(y*w+x)*3+ch])))
			}
		}
	}
	if worst > 1 {
		t.Errorf("%s differs from %s by up to %d levels (1 allowed)", path, goldenCase, worst)
	}
	meta, ok, err := imageio.ReadMetadata(path)
	if err != nil || !ok {
		t.Fatalf("metadata: %v %v", ok, err)
	}
	return meta
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestGenerateInpaint runs generate --image --mask (the rect case, the pipeline's raw
// output with --keep-unmasked=false) and --image --outpaint (the outpainting case from its
// source picture) and compares the PNGs with the golden outputs (±1 level).
func TestGenerateInpaint(t *testing.T) {
	const rect = "rect_w64h48_distilled_s1.0_4steps"
	out := filepath.Join(t.TempDir(), "inpaint.png")
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "A red cube on a blue table", "-s", "4", "-S", "401",
		"--image", golden.Path(t, "inpaint", rect+"_image.png"), "--mask", golden.Path(t, "inpaint", rect+"_mask.png"),
		"--strength", "1", "--keep-unmasked=false", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	meta := checkPNG(t, out, rect)
	if meta.Mode() != "inpaint" || meta.Strength != 1 || meta.Mask == "" || !meta.RawUnmasked {
		t.Errorf("metadata %+v", meta.Settings)
	}

	const outp = "outpaint_w48h32_on_w64h64_distilled_s1.0_4steps"
	out = filepath.Join(t.TempDir(), "outpaint.png")
	code, _, errOut = run(t, "generate", "-d", golden.TinyModel(t), "-p", "a photo of a cat wearing sunglasses, studio lighting, 35mm, f/1.8 -- \"vintage\" look",
		"-s", "4", "-S", "405", "--image", golden.Path(t, "inpaint", outp+"_source.png"), "--outpaint", "8,16,8,16",
		"--strength", "1", "--keep-unmasked=false", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	meta = checkPNG(t, out, outp)
	if meta.Mode() != "outpaint" || meta.Outpaint == nil {
		t.Errorf("metadata %+v", meta.Settings)
	}
}

// TestGenerateInpaintBadInputs: flag problems exit 2, file problems 1, with messages that
// name the flag or the file and the problem; a mask of another size and mode is noted on
// stderr.
func TestGenerateInpaintBadInputs(t *testing.T) {
	const rect = "rect_w64h48_distilled_s1.0_4steps"
	img, mask := golden.Path(t, "inpaint", rect+"_image.png"), golden.Path(t, "inpaint", rect+"_mask.png")
	tmp := t.TempDir()
	colourMask := filepath.Join(tmp, "mask.png")
	m := image.NewNRGBA(image.Rect(0, 0, 32, 24))
	m.Set(3, 3, color.NRGBA{255, 255, 255, 255})
	if err := imageio.WritePNG(colourMask, m, imageio.Metadata{}); err != nil {
		t.Fatal(err)
	}
	model, out := golden.TinyModel(t), filepath.Join(tmp, "out.png")
	base := []string{"generate", "-d", model, "-p", "x", "-o", out}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"mask without image", []string{"--mask", mask}, 2, "--mask needs --image"},
		{"strength without image", []string{"--strength", "0.5"}, 2, "--strength needs --image"},
		{"mask and outpaint", []string{"--image", img, "--mask", mask, "--outpaint", "8,8,8,8"}, 2, "exclude each other"},
		{"strength 0", []string{"--image", img, "--mask", mask, "--strength", "0"}, 2, "strength 0 is out of range"},
		{"strength 1.2", []string{"--image", img, "--mask", mask, "--strength", "1.2"}, 2, "strength 1.2 is out of range"},
		{"negative crop", []string{"--image", img, "--mask", mask, "--mask-crop", "-1"}, 2, "--mask-crop"},
		{"size given", []string{"--image", img, "--mask", mask, "-W", "256"}, 2, "the output takes the image's size"},
		{"two references", []string{"--image", img, "--mask", mask, "-i", img, img}, 2, "at most one extra reference"},
		{"bad outpaint", []string{"--image", img, "--outpaint", "8,8"}, 2, "four pixel counts"},
		{"zero outpaint", []string{"--image", img, "--outpaint", "0,0,0,0"}, 2, "extends nothing"},
		{"outpaint too large", []string{"--image", img, "--outpaint", "0,0,4090,0"}, 2, "gives 4154×48: at most 4096 px per side"},
		{"missing image", []string{"--image", filepath.Join(tmp, "none.png"), "--mask", mask}, 1, "none.png"},
		{"missing mask", []string{"--image", img, "--mask", filepath.Join(tmp, "nomask.png")}, 1, "nomask.png"},
		// The note comes before the model is opened; the bad model folder then fails.
		{"mask note", []string{"-d", tmp, "--image", img, "--mask", colourMask}, 1, "resized from 32×24 to 64×48 (Lanczos) and converted to greyscale"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := run(t, append(append([]string(nil), base...), c.args...)...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, c.code, c.want)
			}
		})
	}
}

// TestGenerateOutpaintSizeNote: an outpainting canvas the model cannot keep (79×48 floors to
// 64×48) is said on stderr and the result has the stated size (issue 30 item 12: it was
// resized without a word); a canvas that fits says nothing.
func TestGenerateOutpaintSizeNote(t *testing.T) {
	src := golden.Path(t, "inpaint", "rect_w64h48_distilled_s1.0_4steps_image.png")
	for _, c := range []struct{ pad, note string }{
		{"15,0,0,0", "Note: the canvas is 79×48; the model works in multiples of 16 px, so the result is 64×48 (stretched)"},
		{"16,0,0,0", ""},
	} {
		out := filepath.Join(t.TempDir(), "o.png")
		code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-s", "1", "-S", "1", "--image", src, "--outpaint", c.pad, "-o", out)
		if code != 0 {
			t.Fatalf("--outpaint %s: exit %d: %s", c.pad, code, errOut)
		}
		if got := strings.Contains(errOut, "Note: the canvas"); got != (c.note != "") || c.note != "" && !strings.Contains(errOut, c.note) {
			t.Errorf("--outpaint %s: stderr %q, want note %q", c.pad, errOut, c.note)
		}
	}
}
