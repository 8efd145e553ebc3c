//go:build cgo

package webgpu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"
)

// variantSpec is one variant of a kernel family: its name, whether the adapter's limits can
// hold it (workgroup memory, invocations; nil means always), and its typed configuration,
// which the dispatch uses directly: a generated tile product (Linear, Conv2D) or a flash
// attention kernel; neither for the fixed legacy kernels.
type variantSpec struct {
	name  string
	fits  func(lim wgpu.Limits) bool
	gemm  *gemmCfg
	flash *flashConfig
}

// variantTable is the one table of every family's variants, reference first (each list is
// built beside its kernels: linearVariants, convVariants, attentionVariants,
// attention512Variants), built once.
var variantTable = sync.OnceValue(func() map[string][]variantSpec {
	return map[string][]variantSpec{
		FamilyLinear:       linearVariants(),
		FamilyConv:         convVariants(),
		FamilyAttention:    attentionVariants(),
		FamilyAttention512: attention512Variants(),
	}
})

// familyVariants lists a family's variants, reference first (shared: not to be modified).
func familyVariants(family string) []variantSpec { return variantTable()[family] }

// specOf is family's variant named name (the zero spec for none).
func specOf(family, name string) variantSpec {
	for _, v := range familyVariants(family) {
		if v.name == name {
			return v
		}
	}
	return variantSpec{}
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

// Forced reports whether family's variant was forced through Options.Variants or
// $KLEINBILD_WEBGPU_VARIANTS (tuning then leaves it alone).
func (b *Backend) Forced(family string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.forced[family]
}

// applyForced sets the variants of forced (from Options.Variants and the environment) and
// marks those families as forced.
func (b *Backend) applyForced(forced map[string]string) error {
	fams := make([]string, 0, len(forced))
	for f := range forced {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		if err := b.SetVariant(f, forced[f]); err != nil {
			return err
		}
		if b.forced == nil {
			b.forced = map[string]bool{}
		}
		b.forced[f] = true
	}
	return nil
}

// tuneFormat is bumped when the meaning of the tuning cache changes without any kernel
// source change (it is part of SourceHash).
const tuneFormat = "2"

// SourceHash identifies the kernels of family as compiled: a hash of the sources its variants
// compile to (familySources: the generated forms and the fixed kernels), the family's variant
// names and tuneFormat. Tuning caches are keyed by it, so that only a change to a family's
// kernels tunes it again.
func SourceHash(family string) string {
	var names []string
	for _, v := range familyVariants(family) {
		names = append(names, v.name)
	}
	return sourceHash(family, names, familyDigest(family))
}

// digestTexts hashes texts in order, each with its length.
func digestTexts(texts []string) []byte {
	h := sha256.New()
	for _, t := range texts {
		fmt.Fprintf(h, "source %d\n", len(t))
		h.Write([]byte(t))
	}
	return h.Sum(nil)
}

// sourceHash combines a family, its variant names and the sources' digest.
func sourceHash(family string, variants []string, digest []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "kleinbild-tune %s %s\n", tuneFormat, family)
	for _, v := range variants {
		fmt.Fprintf(h, "variant %s\n", v)
	}
	h.Write(digest)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
