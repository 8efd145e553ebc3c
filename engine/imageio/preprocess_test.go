package imageio

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	"kleinbild/weights/golden"
)

// rgbBytes returns the HWC RGB bytes of an opaque golden PNG.
func rgbBytes(t *testing.T, img image.Image) []uint8 {
	t.Helper()
	b := img.Bounds()
	out := make([]uint8, 0, b.Dx()*b.Dy()*3)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if c.A != 255 {
				t.Fatalf("golden processed PNG has alpha %d at %d,%d", c.A, x, y)
			}
			out = append(out, c.R, c.G, c.B)
		}
	}
	return out
}

// compareBytes fails unless got equals want, reporting how many bytes differ and by how much.
func compareBytes(t *testing.T, label string, got, want []uint8) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", label, len(got), len(want))
	}
	diff, maxd := 0, 0
	for i := range got {
		if d := int(got[i]) - int(want[i]); d != 0 {
			diff++
			maxd = max(maxd, d, -d)
		}
	}
	t.Logf("%s: %d of %d bytes differ (max |diff| %d)", label, diff, len(got), maxd)
	if diff != 0 {
		t.Errorf("%s: %d of %d bytes differ (max |diff| %d)", label, diff, len(got), maxd)
	}
}

func TestPreprocessGolden(t *testing.T) {
	for _, tc := range []struct {
		name         string
		inW, inH     int
		outW, outH   int
		resizedByPIL bool
	}{
		{"rgb_83x69", 83, 69, 80, 64, false},
		{"rgba_70x130", 70, 130, 64, 128, false},
		{"large_1100x1000", 1100, 1000, 1072, 976, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := Load(golden.Path(t, "image_processor", tc.name+"_input.png"))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != tc.inW || b.Dy() != tc.inH {
				t.Fatalf("input %v", b)
			}
			pix, w, h, err := ProcessedRGB(img)
			if err != nil {
				t.Fatal(err)
			}
			if w != tc.outW || h != tc.outH {
				t.Fatalf("size %d×%d, want %d×%d", w, h, tc.outW, tc.outH)
			}
			ref, err := Load(golden.Path(t, "image_processor", tc.name+"_processed.png"))
			if err != nil {
				t.Fatal(err)
			}
			want := rgbBytes(t, ref)
			if !tc.resizedByPIL {
				f := golden.Open(t, "image_processor/"+tc.name+".safetensors")
				tn, err := f.Tensor("processed_uint8")
				if err != nil {
					t.Fatal(err)
				}
				u8, err := tn.Uint8()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(u8, want) {
					t.Fatal("golden processed_uint8 and processed PNG disagree")
				}
				tensor, tw, th, err := Preprocess(img)
				if err != nil || tw != w || th != h {
					t.Fatalf("Preprocess: %v (%d×%d)", err, tw, th)
				}
				wantT, _ := golden.F32(t, f, "tensor")
				golden.Compare(t, tc.name+" tensor", tensor, wantT, 1e-6)
			} else {
				f := golden.Open(t, "image_processor/"+tc.name+".safetensors")
				shape, _ := golden.I64(t, f, "output_shape_nchw")
				if shape[2] != int64(h) || shape[3] != int64(w) {
					t.Fatalf("golden shape %v, got %d×%d", shape, w, h)
				}
				if rw, rh, _, _ := TargetSize(tc.inW, tc.inH); rw != 1073 || rh != 976 {
					t.Fatalf("resized to %d×%d, want 1073×976", rw, rh)
				}
			}
			compareBytes(t, tc.name+" uint8", pix, want)
		})
	}
}

// TestPreprocessPipelineRefs: the condition images of the golden img2img pipeline runs.
func TestPreprocessPipelineRefs(t *testing.T) {
	for _, tc := range []struct {
		file, tensor string
		png          string
	}{
		{"i2i_distilled_ref83x69_4steps", "condition_image_0", "i2i_ref_83x69.png"},
		{"i2i_distilled_2refs_48x48_4steps", "condition_image_0", "i2i_ref_83x69.png"},
		{"i2i_distilled_2refs_48x48_4steps", "condition_image_1", "i2i_ref_100x70.png"},
	} {
		img, err := Load(golden.Path(t, "pipeline", tc.png))
		if err != nil {
			t.Fatal(err)
		}
		got, w, h, err := Preprocess(img)
		if err != nil {
			t.Fatal(err)
		}
		f := golden.Open(t, "pipeline/"+tc.file+".safetensors")
		want, shape := golden.F32(t, f, tc.tensor)
		if shape[2] != h || shape[3] != w {
			t.Fatalf("%s: %d×%d, want shape %v", tc.png, w, h, shape)
		}
		golden.Compare(t, tc.file+" "+tc.tensor, got, want, 1e-6)
		_, mx := golden.Errors(got, want)
		if mx != 0 {
			t.Errorf("%s %s: max abs %g, want exact", tc.file, tc.tensor, mx)
		}
	}
}

// pngHeader is a PNG signature plus a valid IHDR chunk claiming w×h RGB pixels.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	data := make([]byte, 13)
	binary.BigEndian.PutUint32(data[0:], w)
	binary.BigEndian.PutUint32(data[4:], h)
	data[8], data[9] = 8, 2
	writeChunk(&b, "IHDR", data)
	return b.Bytes()
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadErrors(t *testing.T) {
	var good bytes.Buffer
	if err := png.Encode(&good, image.NewRGBA(image.Rect(0, 0, 70, 70))); err != nil {
		t.Fatal(err)
	}
	truncated := good.Bytes()[:good.Len()-30]
	corrupt := append([]byte(nil), good.Bytes()...)
	for i := 60; i < len(corrupt)-20; i++ { // scramble the compressed pixel data
		corrupt[i] ^= 0x5a
	}
	for _, tc := range []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"too large", "huge.png", pngHeader(100000, 100000), "megapixels"},
		{"too large for int32", "huge2.png", pngHeader(1<<31-1, 1<<31-1), "image header"},
		{"unsupported", "notes.txt", []byte("just some text, not an image at all"), "unsupported image format"},
		{"empty", "empty.png", nil, "is empty"},
		{"truncated", "cut.png", truncated, "cut.png"},
		{"corrupt", "bad.png", corrupt, "bad.png"},
		{"header only", "hdr.png", pngHeader(80, 80), "hdr.png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, tc.file, tc.data)
			img, err := Load(p)
			if err == nil {
				t.Fatalf("no error (image %v)", img.Bounds())
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q should name the file and mention %q", err, tc.want)
			}
			t.Log(err)
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.png")); err == nil || !strings.Contains(err.Error(), "missing.png") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestLoadFormats decodes every registered format (WebP has no encoder to make a sample).
func TestLoadFormats(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 80, 66))
	for i := range src.Pix {
		src.Pix[i] = uint8(i * 13)
		if i%4 == 3 {
			src.Pix[i] = 255
		}
	}
	pal := image.NewPaletted(src.Bounds(), palette.Plan9)
	draw.Draw(pal, pal.Bounds(), src, image.Point{}, draw.Src)
	for _, tc := range []struct {
		file   string
		encode func(io.Writer) error
		exact  bool // lossless RGB: the pixels must come back unchanged
	}{
		{"a.png", func(w io.Writer) error { return png.Encode(w, src) }, true},
		{"a.bmp", func(w io.Writer) error { return bmp.Encode(w, src) }, true},
		{"a.tiff", func(w io.Writer) error { return tiff.Encode(w, src, nil) }, true},
		{"a.gif", func(w io.Writer) error { return gif.Encode(w, pal, nil) }, false},
		{"a.jpg", func(w io.Writer) error { return jpeg.Encode(w, src, &jpeg.Options{Quality: 100}) }, false},
	} {
		var b bytes.Buffer
		if err := tc.encode(&b); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		img, err := Load(writeTemp(t, tc.file, b.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		pix, w, h, err := ProcessedRGB(img)
		if err != nil || w != 80 || h != 64 {
			t.Fatalf("%s: %v %d×%d", tc.file, err, w, h)
		}
		if !tc.exact {
			continue
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				o := src.PixOffset(x, y+1)
				if !bytes.Equal(pix[(y*w+x)*3:(y*w+x)*3+3], src.Pix[o:o+3]) {
					t.Fatalf("%s: pixel %d,%d differs", tc.file, x, y)
				}
			}
		}
	}
}

func TestPreprocessChecks(t *testing.T) {
	for _, r := range []image.Rectangle{
		image.Rect(0, 0, 63, 200), image.Rect(0, 0, 200, 40), image.Rect(0, 0, 64*9, 64),
	} {
		if _, _, _, err := Preprocess(image.NewRGBA(r)); err == nil {
			t.Errorf("%v: no error", r)
		}
	}
	if _, _, _, err := Preprocess(nil); err == nil {
		t.Error("nil image: no error")
	}
}

// TestPreprocessModes covers the conversions to RGB: gray, paletted, CMYK, 16-bit,
// premultiplied alpha, a non-zero image origin, and the resize path of each Pillow mode.
func TestPreprocessModes(t *testing.T) {
	const w, h = 83, 70
	ref := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			ref.SetNRGBA(x, y, color.NRGBA{uint8(3 * x), uint8(255 - 2*y), uint8(x * y), uint8(100 + x)})
		}
	}
	want, ow, oh, err := ProcessedRGB(ref)
	if err != nil || ow != 80 || oh != 64 {
		t.Fatalf("%v %d×%d", err, ow, oh)
	}
	// Alpha is dropped, not blended: the RGB values pass through unchanged.
	if got, wantV := want[0:3], ref.Pix[(3*w+1)*4:(3*w+1)*4+3]; !bytes.Equal(got, wantV) {
		t.Fatalf("first pixel %v, want %v (crop offset 1,3)", got, wantV)
	}

	n64 := image.NewNRGBA64(image.Rect(0, 0, w, h))
	sub := image.NewNRGBA(image.Rect(10, 20, 10+w, 20+h))
	gray := image.NewGray(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(image.Rect(0, 0, w, h))
	pal := image.NewPaletted(image.Rect(0, 0, w, h), nil)
	cmyk := image.NewCMYK(image.Rect(0, 0, w, h))
	var grayWant, palWant, cmykWant []uint8
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := ref.NRGBAAt(x, y)
			n64.SetNRGBA64(x, y, color.NRGBA64{uint16(c.R)<<8 | 0x7f, uint16(c.G) << 8, uint16(c.B)<<8 | 0xff, uint16(c.A) << 8})
			sub.SetNRGBA(10+x, 20+y, c)
			gray.SetGray(x, y, color.Gray{c.R})
			gray16.SetGray16(x, y, color.Gray16{uint16(c.R)<<8 | 0x80})
			cmyk.SetCMYK(x, y, color.CMYK{c.R, c.G, c.B, 40})
		}
	}
	pal.Palette = color.Palette{color.NRGBA{10, 20, 30, 0}, color.RGBA{200, 100, 50, 255}}
	for i := range pal.Pix {
		pal.Pix[i] = uint8(i % 2)
	}
	for y := 3; y < 3+64; y++ {
		for x := 1; x < 1+80; x++ {
			g := gray.GrayAt(x, y).Y
			grayWant = append(grayWant, g, g, g)
			if pal.Pix[y*w+x] == 0 {
				palWant = append(palWant, 10, 20, 30)
			} else {
				palWant = append(palWant, 200, 100, 50)
			}
			c := cmyk.CMYKAt(x, y)
			nk := 255 - uint32(c.K)
			for _, v := range []uint8{c.C, c.M, c.Y} {
				cmykWant = append(cmykWant, uint8(nk-muldiv255(uint32(v), nk)))
			}
		}
	}
	for _, tc := range []struct {
		name string
		img  image.Image
		want []uint8
	}{
		{"nrgba64", n64, want}, {"offset origin", sub, want}, {"gray", gray, grayWant},
		{"gray16", gray16, grayWant}, {"paletted", pal, palWant}, {"cmyk", cmyk, cmykWant},
	} {
		got, gw, gh, err := ProcessedRGB(tc.img)
		if err != nil || gw != 80 || gh != 64 {
			t.Fatalf("%s: %v %d×%d", tc.name, err, gw, gh)
		}
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: RGB bytes differ", tc.name)
		}
	}

	// The resize path: > 1024² pixels, each mode, checked for size and plausibility
	// (flat colours stay flat through LANCZOS; alpha is premultiplied and restored).
	big := image.Rect(0, 0, 1500, 900)
	flat := image.NewNRGBA(big)
	palBig := image.NewPaletted(big, color.Palette{color.RGBA{1, 2, 3, 255}, color.RGBA{250, 251, 252, 255}})
	cmykBig := image.NewCMYK(big)
	for i := 0; i < len(flat.Pix); i += 4 {
		flat.Pix[i], flat.Pix[i+1], flat.Pix[i+2], flat.Pix[i+3] = 90, 160, 230, 128
		cmykBig.Pix[i], cmykBig.Pix[i+1], cmykBig.Pix[i+2], cmykBig.Pix[i+3] = 0, 255, 0, 0
	}
	for i := range palBig.Pix {
		palBig.Pix[i] = 1
	}
	for _, tc := range []struct {
		name string
		img  image.Image
		rgb  [3]uint8
	}{
		{"rgba flat", flat, [3]uint8{90, 160, 230}},
		{"paletted", palBig, [3]uint8{250, 251, 252}},
		{"cmyk", cmykBig, [3]uint8{255, 0, 255}},
	} {
		got, gw, gh, err := ProcessedRGB(tc.img)
		rw, rh, ww, wh := TargetSize(1500, 900)
		if err != nil || gw != ww || gh != wh || rw != 1321 || rh != 793 {
			t.Fatalf("%s: %v %d×%d (resized %d×%d)", tc.name, err, gw, gh, rw, rh)
		}
		for i := 0; i < len(got); i += 3 {
			for c := 0; c < 3; c++ {
				if d := int(got[i+c]) - int(tc.rgb[c]); d < -1 || d > 1 {
					t.Fatalf("%s: pixel %d = %v, want %v", tc.name, i/3, got[i:i+3], tc.rgb)
				}
			}
		}
	}
}

// writeChunk appends one PNG chunk with its CRC.
func writeChunk(b *bytes.Buffer, typ string, data []byte) {
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(data)))
	b.Write(l[:])
	b.WriteString(typ)
	b.Write(data)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	binary.BigEndian.PutUint32(l[:], crc.Sum32())
	b.Write(l[:])
}
