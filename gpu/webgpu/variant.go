//go:build cgo

package webgpu

import (
	"fmt"
	"slices"

	"github.com/cogentcore/webgpu/wgpu"
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

// variantSpec is one variant of a kernel family. fits reports whether the adapter's limits
// can hold it (workgroup memory, invocations); nil means always.
type variantSpec struct {
	name string
	fits func(lim wgpu.Limits) bool
}

// familyVariants lists a family's variants, reference first. Each family defines its own
// list beside its kernels.
func familyVariants(family string) []variantSpec {
	switch family {
	case FamilyLinear:
		return linearVariants()
	case FamilyConv:
		return convVariants()
	case FamilyAttention:
		return attentionVariants()
	case FamilyAttention512:
		return attention512Variants()
	}
	return nil
}

// Variants lists the names of a family's variants that this adapter can run, the reference
// variant first.
func (b *Backend) Variants(family string) []string {
	var names []string
	for _, v := range familyVariants(family) {
		if v.fits == nil || v.fits(b.lim) {
			names = append(names, v.name)
		}
	}
	return names
}

// Variant is the variant of family the backend runs: the one set by SetVariant, else the
// first that fits (the reference).
func (b *Backend) Variant(family string) string {
	if name, ok := b.variants[family]; ok {
		return name
	}
	if names := b.Variants(family); len(names) > 0 {
		return names[0]
	}
	return ""
}

// SetVariant makes the backend run variant name for family (tuning's choice, or a test
// forcing one). It fails for an unknown family or a variant this adapter cannot hold.
func (b *Backend) SetVariant(family, name string) error {
	names := b.Variants(family)
	if names == nil && familyVariants(family) == nil {
		return fmt.Errorf("webgpu: unknown kernel family %q", family)
	}
	if !slices.Contains(names, name) {
		return fmt.Errorf("webgpu: kernel family %s has no variant %q on %s (have %v)", family, name, b.info.Name, names)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.variants == nil {
		b.variants = map[string]string{}
	}
	b.variants[family] = name
	return nil
}
