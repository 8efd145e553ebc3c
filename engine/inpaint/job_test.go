package inpaint

import (
	"image"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// checkPixels fails when any byte differs by more than one level.
func checkPixels(t *testing.T, label string, got, want []uint8) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", label, len(got), len(want))
	}
	diff, worst := 0, 0
	for i := range got {
		if d := max(int(got[i])-int(want[i]), int(want[i])-int(got[i])); d > 0 {
			diff++
			worst = max(worst, d)
		}
	}
	t.Logf("%s: %d of %d bytes differ (max %d)", label, diff, len(got), worst)
	if worst > 1 {
		t.Errorf("%s: a byte differs by %d levels", label, worst)
	}
}

// TestPrepareFinish runs user-level inputs through Prepare and Finish, the latter on the
// pipeline's decoded picture: the crop case gives the pipeline's final picture (within one
// level), and an all-black mask with keepUnmasked gives back the input's pixels exactly.
// (engine.TestInpaintGolden runs the whole pipeline through engine.Generate.)
func TestPrepareFinish(t *testing.T) {
	for _, prefix := range []string{"padcrop", "mask_all_black"} {
		c := caseNamed(t, prefix)
		t.Run(c.name, func(t *testing.T) {
			pad := -1
			if c.PadCrop != nil {
				pad = *c.PadCrop
			}
			in, err := Prepare(c.load(t, c.ImagePNG), c.load(t, c.MaskPNG), pad)
			if err != nil {
				t.Fatal(err)
			}
			decoded, _ := golden.F32(t, c.open(t), "decoded")
			keep := c.PadCrop == nil
			pic, err := in.Finish(decoded, keep, DefaultFeather)
			if err != nil {
				t.Fatal(err)
			}
			if b := pic.Bounds(); b.Dx() != c.InputWH[0] || b.Dy() != c.InputWH[1] {
				t.Fatalf("picture %v, want %v", b, c.InputWH)
			}
			got := RGB{Pix: make([]uint8, 0, len(pic.Pix)/4*3), W: pic.Rect.Dx(), H: pic.Rect.Dy()}
			for i := 0; i < len(pic.Pix); i += 4 {
				got.Pix = append(got.Pix, pic.Pix[i:i+3]...)
			}
			if keep {
				want, err := Image(c.load(t, c.ImagePNG))
				if err != nil {
					t.Fatal(err)
				}
				checkPixels(t, "kept input", got.Pix, want.Pix)
				for i := range got.Pix {
					if got.Pix[i] != want.Pix[i] {
						t.Fatalf("byte %d: %d, want the input's %d", i, got.Pix[i], want.Pix[i])
					}
				}
				return
			}
			checkPixels(t, "image_uint8", got.Pix, u8(t, c, "image_uint8"))
		})
	}
	if in, err := Prepare(image.NewGray(image.Rect(0, 0, 64, 64)), image.NewGray(image.Rect(0, 0, 64, 64)), -1); err != nil {
		t.Fatal(err)
	} else if _, err := in.Finish(make([]float32, 10), false, 0); err == nil {
		t.Error("Finish accepted a wrong-sized picture")
	}
}

func TestMaskNote(t *testing.T) {
	if s := MaskNote(image.NewGray(image.Rect(0, 0, 64, 48)), 64, 48); s != "" {
		t.Errorf("matching grey mask: %q", s)
	}
	s := MaskNote(image.NewNRGBA(image.Rect(0, 0, 32, 24)), 64, 48)
	if !strings.Contains(s, "32×24 to 64×48") || !strings.Contains(s, "greyscale") {
		t.Errorf("note %q", s)
	}
}

// TestSizeNote: the notice of a result whose size differs from the picture or canvas
// (issue 30 item 12: outpainting 64×48 by 2016,2024,2016,2024 gave 1024×1024 without a word).
func TestSizeNote(t *testing.T) {
	cases := []struct {
		w, h            int
		canvas, cropped bool
		want            string
	}{
		{4128, 4096, true, false, "the canvas is 4128×4096; the model works at 1 MP, so the result is 1024×1008"},
		{79, 48, true, false, "the canvas is 79×48; the model works in multiples of 16 px, so the result is 64×48 (stretched)"},
		{4096, 4096, false, false, "the image is 4096×4096; the model works at 1 MP, so the result is 1024×1024"},
		{4096, 4096, false, true, ""},
		{64, 48, false, false, ""},
	}
	for _, c := range cases {
		if got := SizeNote(c.w, c.h, c.canvas, c.cropped); got != c.want {
			t.Errorf("%d×%d: %q, want %q", c.w, c.h, got, c.want)
		}
	}
}
