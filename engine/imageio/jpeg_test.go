package imageio

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"testing"

	"kleinbild/engine/schema"
)

// TestEncodeJPEG: the parameters text sits in a comment segment after the start marker, the
// file decodes to the image's size, and an over-long text is cut to the segment's limit.
func TestEncodeJPEG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 24, 16))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	for _, tc := range []struct {
		prompt  string
		comment int // bytes of comment expected (0: not checked)
	}{{"a red cube", 0}, {strings.Repeat("x", 70000), 0xFFFF - 2}} {
		m := Metadata{Settings: schema.Settings{Prompt: tc.prompt, Seed: 7, Steps: 4, Width: 24, Height: 16}}
		b, err := EncodeJPEG(img, m, 90)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
		if err != nil || cfg.Width != 24 || cfg.Height != 16 {
			t.Fatalf("decode: %v %+v", err, cfg)
		}
		if b[2] != 0xFF || b[3] != 0xFE {
			t.Fatalf("no comment segment after SOI for %.20q", tc.prompt)
		}
		n := int(b[4])<<8 | int(b[5]) - 2
		text := string(b[6 : 6+n])
		if tc.comment > 0 && n != tc.comment {
			t.Errorf("comment of %d bytes, want %d", n, tc.comment)
		}
		if !strings.HasPrefix(text, tc.prompt[:min(len(tc.prompt), 100)]) || (tc.comment == 0 && !strings.Contains(text, "Seed: 7")) {
			t.Errorf("comment %.80q", text)
		}
	}
}
