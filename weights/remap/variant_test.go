package remap_test

import (
	"testing"

	"kleinbild/weights/remap"
)

func TestKleinVariant(t *testing.T) {
	cases := []struct {
		hidden, double, single int
		hints                  []string
		want                   remap.Variant
	}{
		{3072, 5, 20, []string{"flux-2-klein-4b.safetensors"}, remap.Variant{Size: "4B", Distilled: "distilled"}},
		{3072, 5, 20, []string{"flux-2-klein-base-4b.safetensors"}, remap.Variant{Size: "4B", Distilled: "base"}},
		{4096, 8, 24, []string{"FLUX.2-klein-9B-Q4_K_M.gguf", "FLUX.2 Klein Base 9B"}, remap.Variant{Size: "9B", Distilled: "base"}},
		{4096, 8, 24, []string{"model.gguf"}, remap.Variant{Size: "9B"}},
		{3072, 5, 20, nil, remap.Variant{Size: "4B"}},
		{64, 2, 2, []string{"tiny distilled"}, remap.Variant{Distilled: "distilled"}},
		{3072, 8, 24, []string{"klein"}, remap.Variant{Distilled: "distilled"}},
	}
	for _, c := range cases {
		if got := remap.KleinVariant(c.hidden, c.double, c.single, c.hints...); got != c.want {
			t.Errorf("%d/%d/%d %v: %+v, want %+v", c.hidden, c.double, c.single, c.hints, got, c.want)
		}
	}
}
