package vae

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// fastDecodeTol bounds the rel-L2 error of the decoded image in the fast precision (Vulkan:
// convolutions on float16 operands with float32 sums, gpu.PrecisionFast) against the golden
// float32 reference. Measured on lavapipe (the twin kernels; the VAE's own Linears and
// attention too where they qualify): 8.8e-4–9.7e-4 on the three golden sizes, 8-bit images
// within 1 level. A fault gives errors of order 1.
const fastDecodeTol = 5e-3

// TestDecodeFastPrecision decodes the golden latents of the tiny VAE on the Vulkan backend
// in the fast precision (skipped without Vulkan, unless KLEINBILD_REQUIRE_VULKAN=1) and
// bounds the decoded image's error by fastDecodeTol and its 8-bit image's by 2 levels.
func TestDecodeFastPrecision(t *testing.T) {
	dev, err := backends.Open("vulkan")
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan backend: %v", err)
	}
	defer dev.Close()
	p, ok := dev.(gpu.Precisioner)
	if !ok {
		t.Fatalf("%s has no precision modes", dev.Name())
	}
	note, err := p.SetPrecision(gpu.PrecisionFast)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("precision: %s", note)
	v, err := Load(filepath.Join(golden.TinyModel(t), "vae"), dev)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.h, sz.w), func(t *testing.T) {
			f := golden.Open(t, fmt.Sprintf("vae/decode_%dx%d.safetensors", sz.h, sz.w))
			in, _ := golden.F32(t, f, "unpatchified")
			dec, err := v.Decode(context.Background(), in, sz.h/8, sz.w/8, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := golden.F32(t, f, "decoded")
			golden.Compare(t, "decoded", dec, want, fastDecodeTol)
			worst := 0
			got, ref := ToRGB(dec, sz.h, sz.w), ToRGB(want, sz.h, sz.w)
			for i := range got.Pix {
				d := int(got.Pix[i]) - int(ref.Pix[i])
				worst = max(worst, d, -d)
			}
			t.Logf("8-bit image: worst difference %d levels", worst)
			if worst > 2 {
				t.Errorf("8-bit image differs by up to %d levels (2 allowed)", worst)
			}
		})
	}
}
