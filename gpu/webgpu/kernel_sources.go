//go:build cgo

package webgpu

import (
	"sync"

	"github.com/cogentcore/webgpu/wgpu"
)

// familySources are the kernel sources a family's variants compile to, in a fixed order: the
// generated forms of each variant (the tile products in the operand kinds, load widths and
// interior/edge forms Linear and Conv2D dispatch; the flash kernels at the models' head dims,
// with and without vec4 loads) and the fixed kernels of the legacy variants. The tuning cache
// is keyed on them (SourceHash): an edit elsewhere in the package leaves it valid, an edit that
// changes any kernel a family runs tunes the family again.
func familySources(family string) []string {
	var out []string
	for _, v := range familyVariants(family) {
		out = append(out, variantSources(family, v)...)
	}
	return out
}

// variantSources are the kernel sources of variant v of family (see familySources).
func variantSources(family string, v variantSpec) []string {
	switch family {
	case FamilyLinear, FamilyConv:
		if v.gemm == nil { // the first kernels
			if family == FamilyConv {
				return []string{convF32.src, convBF16.src}
			}
			out := []string{linearF32.src, linearBF16.src}
			for _, d := range QuantTypes() {
				out = append(out, quantKernels[d].src)
			}
			return out
		}
		var out []string
		cfg := *v.gemm
		for _, c := range []gemmCfg{cfg, gemmTile(cfg, 1, wgpu.Limits{MaxComputeWorkgroupStorageSize: 1 << 30, MaxComputeInvocationsPerWorkgroup: 1 << 12, MaxComputeWorkgroupSizeX: 1 << 12})} {
			for _, k := range gemmForms(c, family == FamilyConv) {
				out = append(out, gemmSource(k))
			}
		}
		if cfg.sk > 1 {
			out = append(out, reduceWGSL)
		}
		return out
	case FamilyAttention, FamilyAttention512:
		f := v.flash
		if f == nil {
			return []string{attentionKernel.src}
		}
		dims := []int{64, 128}
		if family == FamilyAttention512 {
			dims = []int{512}
		}
		var out []string
		for _, d := range dims {
			for _, noMask := range []bool{false, true} {
				out = append(out, f.flashSource(d, true, noMask), f.flashSource(d, false, noMask))
			}
		}
		return out
	}
	return nil
}

// gemmForms lists the compiled forms of cfg: every operand kind and load width (Linear's
// quantized weights included), checked and interior; with o4 also with vec4 stores, with sk
// also as K slices.
func gemmForms(cfg gemmCfg, conv bool) []gemmKey {
	keys := baseForms(cfg, conv)
	if cfg.o4 && !conv {
		for _, k := range keys {
			k.yVec = 4
			keys = append(keys, k)
		}
	}
	if cfg.sk > 1 && !conv {
		for _, k := range keys {
			k.split = true
			keys = append(keys, k)
		}
	}
	return keys
}

// baseForms lists the forms of cfg in every operand kind and load width, checked and
// interior.
func baseForms(cfg gemmCfg, conv bool) []gemmKey {
	var keys []gemmKey
	for _, interior := range []bool{false, true} {
		for _, w := range [][2]int{{opF32, 1}, {opF32, 4}, {opBF16, 1}, {opBF16, 8}} {
			if conv {
				keys = append(keys, gemmKey{cfg: cfg, aKind: w[0], aVec: w[1], bKind: opGather, bVec: 1, conv: true, interior: interior})
				continue
			}
			for _, xv := range []int{1, 4} {
				keys = append(keys, gemmKey{cfg: cfg, aKind: opF32, aVec: xv, bKind: w[0], bVec: w[1], interior: interior})
			}
		}
	}
	if !conv {
		keys = append(keys, quantForms(cfg)...)
	}
	return keys
}

// familyDigests holds each family's sources digest (computed once: the sources are fixed).
var familyDigests sync.Map

// familyDigest is the digest of family's sources (digestTexts of familySources).
func familyDigest(family string) []byte {
	if d, ok := familyDigests.Load(family); ok {
		return d.([]byte)
	}
	d := digestTexts(familySources(family))
	familyDigests.Store(family, d)
	return d
}
