package inpaint

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

func u8(t *testing.T, c goldenCase, name string) []uint8 {
	t.Helper()
	tt, err := c.open(t).Tensor(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tt.Uint8()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func caseNamed(t *testing.T, prefix string) goldenCase {
	t.Helper()
	for _, c := range goldenCases(t) {
		if strings.HasPrefix(c.name, prefix) {
			return c
		}
	}
	t.Fatalf("no golden case %s*", prefix)
	return goldenCase{}
}

// TestGoldenOverlay pastes the pipeline's generated picture back with Crop.Overlay and
// compares with the pipeline's final picture: bit-exact.
func TestGoldenOverlay(t *testing.T) {
	c := caseNamed(t, "padcrop")
	crop, err := CropForMask(c.load(t, c.ImagePNG), c.load(t, c.MaskPNG), *c.PadCrop)
	if err != nil {
		t.Fatal(err)
	}
	gen := RGB{Pix: u8(t, c, "generated_uint8"), W: crop.Image.W, H: crop.Image.H}
	got, err := crop.Overlay(gen)
	if err != nil {
		t.Fatal(err)
	}
	want := u8(t, c, "image_uint8")
	if got.W != c.InputWH[0] || got.H != c.InputWH[1] {
		t.Fatalf("overlay is %d×%d, want the input's %v", got.W, got.H, c.InputWH)
	}
	if !bytes.Equal(got.Pix, want) {
		n := 0
		for i := range want {
			if got.Pix[i] != want[i] {
				n++
			}
		}
		t.Errorf("overlay: %d of %d bytes differ from image_uint8", n, len(want))
	}
	// The raw mask is 0/255 here: the original survives exactly where it is 0.
	for i, m := range crop.OriginalMask {
		if m == 0 && !bytes.Equal(got.Pix[i*3:i*3+3], crop.Original.Pix[i*3:i*3+3]) {
			t.Fatalf("pixel %d outside the mask changed", i)
		}
	}
}

// TestGoldenOutpaintCanvas rebuilds the outpainting case's canvas and mask from its
// source picture: equal to the PNGs the pipeline was given.
func TestGoldenOutpaintCanvas(t *testing.T) {
	c := caseNamed(t, "outpaint")
	src := c.load(t, strings.TrimSuffix(c.ImagePNG, "_image.png")+"_source.png")
	canvas, mask, err := Outpaint(src, Padding{Left: 8, Top: 16, Right: 8, Bottom: 16})
	if err != nil {
		t.Fatal(err)
	}
	wantImg, err := Image(c.load(t, c.ImagePNG))
	if err != nil {
		t.Fatal(err)
	}
	if canvas.W != wantImg.W || canvas.H != wantImg.H || !bytes.Equal(canvas.Pix, wantImg.Pix) {
		t.Errorf("canvas %d×%d differs from the case's image", canvas.W, canvas.H)
	}
	wantMask, err := Mask(c.load(t, c.MaskPNG), canvas.W, canvas.H)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Binarize(mask), wantMask) {
		t.Errorf("outpainting mask differs from the case's mask")
	}
	// Through the package's own preprocessing the canvas gives the case's tensors.
	bin, err := Mask(GrayImage(mask, canvas.W, canvas.H), canvas.W, canvas.H)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := LatentMask(bin, canvas.W, canvas.H)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := golden.F32(t, c.open(t), "mask_packed")
	exact(t, "mask_packed from Outpaint", tok, want)
}

func TestPadToAspect(t *testing.T) {
	for _, tc := range []struct {
		w, h, aw, ah int
		want         Padding
	}{
		{48, 32, 1, 1, Padding{0, 8, 0, 8}},       // 48×48
		{64, 48, 16, 9, Padding{16, 0, 16, 0}},    // 85.3 -> 86 -> 96 wide, 48 high
		{100, 50, 4, 3, Padding{6, 15, 6, 15}},    // 100×75, rounded up to 112×80
		{64, 64, 1, 1, Padding{0, 0, 0, 0}},       // already square
		{1000, 10, 1, 1, Padding{4, 499, 4, 499}}, // 1008×1008
	} {
		got, err := PadToAspect(tc.w, tc.h, tc.aw, tc.ah)
		if err != nil {
			t.Fatal(err)
		}
		cw, ch := got.Size(tc.w, tc.h)
		if cw%16 != 0 || ch%16 != 0 || cw < tc.w || ch < tc.h {
			t.Errorf("%d×%d to %d:%d: canvas %d×%d", tc.w, tc.h, tc.aw, tc.ah, cw, ch)
		}
		if got != tc.want {
			t.Errorf("%d×%d to %d:%d: %+v (canvas %d×%d), want %+v", tc.w, tc.h, tc.aw, tc.ah, got, cw, ch, tc.want)
		}
	}
	if _, err := PadToAspect(64, 64, 0, 1); err == nil {
		t.Error("aspect 0:1 accepted")
	}
}

func TestParsePadding(t *testing.T) {
	p, err := ParsePadding("8, 16,8,0")
	if err != nil || p != (Padding{8, 16, 8, 0}) {
		t.Fatalf("ParsePadding: %+v, %v", p, err)
	}
	for _, bad := range []string{"", "1,2,3", "1,2,3,4,5", "-1,0,0,0", "a,0,0,0", "1.5,0,0,0", "99999999999999999999,0,0,0"} {
		if _, err := ParsePadding(bad); err == nil {
			t.Errorf("ParsePadding(%q) accepted", bad)
		}
	}
	if err := (Padding{0, 0, 1000, 0}).Validate(1000, 64, 1792); err == nil {
		t.Error("a 2000 px canvas passed a 1792 px limit")
	}
	if err := (Padding{0, 0, math.MaxInt, math.MaxInt}).Validate(10, 10, 1792); err == nil {
		t.Error("huge padding passed")
	}
}

func FuzzParsePadding(f *testing.F) {
	for _, s := range []string{"8,16,8,16", "0,0,0,0", " 1 ,2,3,4", "-1,2,3,4", "1,2,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePadding(s)
		if err != nil {
			return
		}
		if p.Left < 0 || p.Top < 0 || p.Right < 0 || p.Bottom < 0 {
			t.Fatalf("%q gave negative padding %+v", s, p)
		}
		if p.Validate(64, 64, 1792) == nil {
			if cw, ch := p.Size(64, 64); cw > 1792 || ch > 1792 {
				t.Fatalf("%q: canvas %d×%d passed validation", s, cw, ch)
			}
		}
	})
}

// TestKeepUnmasked: outside the feathered band the output is the original's pixels, on the
// mask the generated ones, and the band ramps monotonically between them.
func TestKeepUnmasked(t *testing.T) {
	const w, h, feather = 64, 48, 6
	rng := rand.New(rand.NewPCG(1, 2))
	orig, gen := RGB{make([]uint8, w*h*3), w, h}, RGB{make([]uint8, w*h*3), w, h}
	for i := range orig.Pix {
		orig.Pix[i] = uint8(rng.IntN(256))
		gen.Pix[i] = uint8(rng.IntN(256))
	}
	bin := make([]uint8, w*h)
	inMask := func(x, y int) bool { return x >= 20 && x < 40 && y >= 10 && y < 30 }
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if inMask(x, y) {
				bin[y*w+x] = 1
			}
		}
	}
	out, err := KeepUnmasked(orig, gen, bin, feather)
	if err != nil {
		t.Fatal(err)
	}
	band := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * 3
			dx := max(20-x, x-39, 0)
			dy := max(10-y, y-29, 0)
			d := math.Hypot(float64(dx), float64(dy))
			switch {
			case inMask(x, y):
				if !bytes.Equal(out.Pix[i:i+3], gen.Pix[i:i+3]) {
					t.Fatalf("masked pixel %d,%d is not the generated one", x, y)
				}
			case d >= feather:
				if !bytes.Equal(out.Pix[i:i+3], orig.Pix[i:i+3]) {
					t.Fatalf("pixel %d,%d at %.1f px from the mask is not the original", x, y, d)
				}
			default:
				band++
				a := 1 - d/feather
				for c := 0; c < 3; c++ {
					want := float64(orig.Pix[i+c]) + a*(float64(gen.Pix[i+c])-float64(orig.Pix[i+c]))
					if math.Abs(float64(out.Pix[i+c])-want) > 0.5 {
						t.Fatalf("band pixel %d,%d (d=%.2f): %d, want %.2f", x, y, d, out.Pix[i+c], want)
					}
				}
			}
		}
	}
	if band == 0 {
		t.Fatal("no pixel in the feathered band")
	}
	// Hard edge.
	out, err = KeepUnmasked(orig, gen, bin, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range bin {
		want := orig.Pix[i*3 : i*3+3]
		if m != 0 {
			want = gen.Pix[i*3 : i*3+3]
		}
		if !bytes.Equal(out.Pix[i*3:i*3+3], want) {
			t.Fatalf("feather 0: pixel %d wrong", i)
		}
	}
	if _, err := KeepUnmasked(orig, RGB{gen.Pix, h, w}, bin, 4); err == nil {
		t.Error("mismatched sizes accepted")
	}
}

// TestKeepUnmaskedGolden applies the composite to a golden case's output: outside the
// feathered band it restores the input's pixels, which the pipeline's output (the VAE
// reconstruction) does not have.
func TestKeepUnmaskedGolden(t *testing.T) {
	c := caseNamed(t, "rect")
	img, bin, _ := c.prepared(t)
	gen := RGB{Pix: u8(t, c, "image_uint8"), W: img.W, H: img.H}
	out, err := KeepUnmasked(img, gen, bin, DefaultFeather)
	if err != nil {
		t.Fatal(err)
	}
	d2 := maskDistance2(bin, img.W, img.H, DefaultFeather)
	kept, changedBefore := 0, 0
	for i := range bin {
		if d2[i] >= DefaultFeather*DefaultFeather {
			kept++
			if !bytes.Equal(out.Pix[i*3:i*3+3], img.Pix[i*3:i*3+3]) {
				t.Fatalf("pixel %d outside the band differs from the input", i)
			}
			if !bytes.Equal(gen.Pix[i*3:i*3+3], img.Pix[i*3:i*3+3]) {
				changedBefore++
			}
		}
	}
	if kept == 0 || changedBefore == 0 {
		t.Fatalf("%d pixels outside the band, %d of them changed by the pipeline: the test shows nothing", kept, changedBefore)
	}
	t.Logf("%d pixels outside the band restored (%d had drifted in the VAE round trip)", kept, changedBefore)
}

func TestCropRegionEdges(t *testing.T) {
	const w, h = 40, 30
	l := make([]uint8, w*h)
	if _, err := CropRegion(l, w, h, 32, 32, 4); err == nil {
		t.Error("empty mask gave a crop region")
	}
	l[0] = 1 // corner pixel, square processing: box grows inside the picture
	r, err := CropRegion(l, w, h, 32, 32, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !r.In(image.Rect(0, 0, w, h)) || r.Dx() != r.Dy() {
		t.Errorf("corner box %v", r)
	}
	for i := range l {
		l[i] = 255
	}
	r, err = CropRegion(l, w, h, 32, 16, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r != image.Rect(0, 0, w, h) {
		t.Errorf("full mask box %v, want the whole picture", r)
	}
	if _, err := CropRegion(l, w, h, 0, 16, 0); err == nil {
		t.Error("zero processing width accepted")
	}
}

func TestResizeFillBorders(t *testing.T) {
	// A 10×20 picture filled into 40×40: 10 px side borders copied from the edge columns.
	const w, h = 10, 20
	rgb := make([]uint8, w*h*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for c := 0; c < 3; c++ {
				rgb[(y*w+x)*3+c] = uint8(100 + 10*x)
			}
		}
	}
	got := resizeFill(pillowRGB(rgb, w, h), 40, 40)
	// Left border: 1.125·100 − 0.125·110 = 98.75 -> 99 (Pillow rounds the fixed-point sum).
	if v := got[(5*40+0)*3]; v != 99 {
		t.Errorf("left fill %d, want 99", v)
	}
	// Right border: 1.125·190 − 0.125·180 = 191.25 -> 191.
	if v := got[(5*40+39)*3]; v != 191 {
		t.Errorf("right fill %d, want 191", v)
	}
}

func TestStartStepErrors(t *testing.T) {
	for _, s := range []float64{0, -0.1, 1.01, math.NaN(), math.Inf(1)} {
		if _, err := StartStep(4, s); err == nil {
			t.Errorf("strength %v accepted", s)
		}
	}
	if _, err := StartStep(0, 1); err == nil {
		t.Error("0 steps accepted")
	}
	if ts, err := StartStep(28, 1e-9); err != nil || ts != 27 {
		t.Errorf("tiny strength: t_start %d, %v; want 27 (one step)", ts, err)
	}
}

// TestSizes covers the size rules the golden cases do not reach: the 1024² pre-resize,
// sides under 16 px, masks of another size and mode, and a crop mask of another size.
func TestSizes(t *testing.T) {
	big := image.NewNRGBA(image.Rect(0, 0, 1100, 1000))
	for i := range big.Pix {
		big.Pix[i] = uint8(i)
	}
	got, err := Image(big)
	if err != nil {
		t.Fatal(err)
	}
	// s = sqrt(1024²/(1100·1000)): 1073×976, floored to 1072×976, then stretched.
	if got.W != 1072 || got.H != 976 {
		t.Errorf("1100×1000 image processed to %d×%d, want 1072×976", got.W, got.H)
	}
	ref, err := Reference(image.NewGray(image.Rect(0, 0, 70, 20)))
	if err != nil || ref.W != 64 || ref.H != 16 {
		t.Errorf("70×20 reference: %d×%d, %v; want 64×16", ref.W, ref.H, err)
	}
	for _, sz := range [][2]int{{15, 64}, {64, 8}} {
		small := image.NewGray(image.Rect(0, 0, sz[0], sz[1]))
		if _, err := Image(small); err == nil {
			t.Errorf("%d×%d image accepted", sz[0], sz[1])
		}
		if _, err := Reference(small); err == nil {
			t.Errorf("%d×%d reference accepted", sz[0], sz[1])
		}
	}
	// A half-white RGBA mask at half size: resized, L, binarised.
	m := image.NewNRGBA(image.Rect(0, 0, 32, 24))
	for y := 0; y < 24; y++ {
		for x := 16; x < 32; x++ {
			copy(m.Pix[m.PixOffset(x, y):], []uint8{255, 255, 255, 255})
		}
		for x := 0; x < 16; x++ {
			m.Pix[m.PixOffset(x, y)+3] = 255
		}
	}
	bin, err := Mask(m, 64, 48)
	if err != nil {
		t.Fatal(err)
	}
	if bin[10*64+5] != 0 || bin[10*64+60] != 1 {
		t.Errorf("resized mask: left %d, right %d; want 0, 1", bin[10*64+5], bin[10*64+60])
	}
	if _, err := Mask(m, 0, 48); err == nil {
		t.Error("empty mask size accepted")
	}
	// padding_mask_crop with a mask of another size: resized to the image's first.
	src := image.NewNRGBA(image.Rect(0, 0, 96, 64))
	half := image.NewGray(image.Rect(0, 0, 48, 32))
	for y := 10; y < 20; y++ {
		for x := 20; x < 30; x++ {
			half.Pix[y*48+x] = 255
		}
	}
	crop, err := CropForMask(src, half, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !crop.Box.In(image.Rect(0, 0, 96, 64)) || crop.Image.W != 96 || crop.Image.H != 64 || len(crop.OriginalMask) != 96*64 {
		t.Errorf("crop box %v, image %d×%d", crop.Box, crop.Image.W, crop.Image.H)
	}
	if _, err := CropForMask(src, image.NewGray(image.Rect(0, 0, 96, 64)), 4); err == nil {
		t.Error("padding_mask_crop with an empty mask accepted")
	}
}
