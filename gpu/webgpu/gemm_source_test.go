//go:build cgo

package webgpu

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// webgpuDefaults are the limits WebGPU grants a device that asks for none.
var webgpuDefaults = wgpu.Limits{MaxComputeWorkgroupStorageSize: 16384, MaxComputeInvocationsPerWorkgroup: 256,
	MaxComputeWorkgroupSizeX: 256}

// TestGemmVariantLimits checks each family's variant list: generated variants parse back
// from their names, every form's workgroup arrays fit the bytes fits() counts, and under
// WebGPU's default limits at least one generated variant is left (and the small-M tile fits).
func TestGemmVariantLimits(t *testing.T) {
	arrays := regexp.MustCompile(`var<workgroup> \w+: array<(f32|vec4<f32>), (\d+)>`)
	for _, fam := range []string{FamilyLinear, FamilyConv} {
		fitting := 0
		for _, v := range familyVariants(fam) {
			cfg, ok := parseGemm(v.name)
			if !ok {
				if v.name != legacyVariant {
					t.Errorf("%s: variant %q is neither generated nor the first kernel", fam, v.name)
				}
				continue
			}
			if v.fits(webgpuDefaults) {
				fitting++
			}
			for _, key := range gemmForms(cfg, fam == FamilyConv) {
				src := gemmSource(key)
				bytes := 0
				for _, m := range arrays.FindAllStringSubmatch(src, -1) {
					n, _ := strconv.Atoi(m[2])
					if m[1] == "f32" {
						bytes += 4 * n
					} else {
						bytes += 16 * n
					}
				}
				if bytes == 0 || bytes > cfg.smem() {
					t.Errorf("%s: %d bytes of workgroup memory, fits() counts %d", key, bytes, cfg.smem())
				}
				if !strings.Contains(src, "@workgroup_size("+strconv.Itoa(cfg.wg())+")") {
					t.Errorf("%s: workgroup size is not %d", key, cfg.wg())
				}
			}
		}
		if fitting == 0 {
			t.Errorf("%s: no variant fits WebGPU's default limits", fam)
		}
	}
	if !smallM.fits(webgpuDefaults) {
		t.Error("the small-M tile does not fit WebGPU's default limits")
	}
	if _, ok := parseGemm("t128x128-r8x8-k16-v4-wg255"); ok {
		t.Error("parseGemm accepted a wrong workgroup size")
	}
}

// TestReadWrite checks that readWrite marks exactly the inputs its mask names.
func TestReadWrite(t *testing.T) {
	src := "@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n" +
		"@group(0) @binding(2) var<storage, read> x: array<f32>;\n" +
		"@group(0) @binding(3) var<storage, read> w: array<f32>;\n" +
		"@group(0) @binding(4) var<storage, read> c: array<f32>;\n"
	got := readWrite(src, 1, 0b101)
	for b, want := range map[int]string{2: "read_write", 3: "read", 4: "read_write"} {
		line := "@binding(" + strconv.Itoa(b) + ") var<storage, " + want + ">"
		if !strings.Contains(got, line) {
			t.Errorf("binding %d: want %q in\n%s", b, line, got)
		}
	}
	if readWrite(src, 1, 0) != src {
		t.Error("an empty mask changed the source")
	}
}
