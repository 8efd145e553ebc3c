package webgpu

import (
	"fmt"
	"slices"
	"strings"
)

// Kernel families whose kernels are generated over a few parameters (tile, outputs per
// thread, K step, vector width, workgroup size). Each generated form is a variant, named by
// its parameters; the first variant a family lists is its reference variant, which tuning
// checks the others against.
const (
	FamilyLinear       = "linear"
	FamilyConv         = "conv"
	FamilyAttention    = "attention"     // head dims up to 128
	FamilyAttention512 = "attention-512" // the VAE's one-head attention, head dim 512
)

// Families lists the tunable kernel families.
func Families() []string {
	return []string{FamilyLinear, FamilyConv, FamilyAttention, FamilyAttention512}
}

// EnvVariants names the environment variable that forces kernel variants for every backend
// New opens, "family=variant" pairs separated by commas (for example
// "linear=t64x64-r4x4,attention=legacy"); it overrides Options.Variants for the
// families it names. Tests use it to run the conformance suite on a non-default variant.
const EnvVariants = "KLEINBILD_WEBGPU_VARIANTS"

// ParseVariants parses a list of "family=variant" pairs separated by commas (the format of
// $KLEINBILD_WEBGPU_VARIANTS). Unknown families are errors; whether the variant exists is
// checked when a backend applies it (SetVariant).
func ParseVariants(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		fam, name, ok := strings.Cut(f, "=")
		fam, name = strings.TrimSpace(fam), strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("webgpu: variant %q: want family=variant", f)
		}
		if !slices.Contains(Families(), fam) {
			return nil, fmt.Errorf("webgpu: variant %q: unknown kernel family %q (have %s)", f, fam, strings.Join(Families(), ", "))
		}
		out[fam] = name
	}
	return out, nil
}
