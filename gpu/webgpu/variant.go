//go:build cgo

package webgpu

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"
)

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

// kernelSources holds the package's kernel sources for SourceHash: the WGSL files and the Go
// files, since some kernels are generated in Go (tile parameters, op codes, composed shared
// code).
//
//go:embed *.wgsl *.go
var kernelSources embed.FS

// tuneFormat is bumped when the meaning of the tuning cache changes without any source change
// (it is part of SourceHash).
const tuneFormat = "1"

// SourceHash identifies the kernels of family as compiled: a hash of the package's WGSL and
// non-test Go sources (shared code is composed into several families and kernels are
// generated in Go, so any change re-tunes every family), the family's variant names and
// tuneFormat. Tuning caches are keyed by it.
func SourceHash(family string) string {
	var names []string
	for _, v := range familyVariants(family) {
		names = append(names, v.name)
	}
	return sourceHash(family, names, sourcesDigest())
}

// sourcesDigest is the hash of the package's sources (computed once: they are embedded).
var sourcesDigest = sync.OnceValue(func() []byte { return digestSources(kernelSources) })

// digestSources hashes the *.wgsl and non-test *.go files of fsys.
func digestSources(fsys fs.FS) []byte {
	h := sha256.New()
	wgsl, _ := fs.Glob(fsys, "*.wgsl")
	gosrc, _ := fs.Glob(fsys, "*.go")
	names := append(wgsl, gosrc...)
	sort.Strings(names)
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, _ := fs.ReadFile(fsys, n)
		fmt.Fprintf(h, "file %s %d\n", n, len(src))
		h.Write(src)
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
