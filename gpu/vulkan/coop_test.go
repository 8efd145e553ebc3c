//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"testing"
	"unsafe"
)

// TestUnitStructs checks the sizes of the C structures of the matrix-unit probe against
// vulkan_core.h on 64-bit platforms (a wrong size corrupts the driver's writes).
func TestUnitStructs(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"VkCooperativeMatrixPropertiesNV", unsafe.Sizeof(coopMatrixProperties{}), 48},
		{"VkPhysicalDeviceCooperativeMatrixFeaturesNV", unsafe.Sizeof(coopMatrixFeatures{}), 24},
		{"VkPhysicalDeviceShaderFloat16Int8Features", unsafe.Sizeof(float16Int8Features{}), 24},
		{"VkPhysicalDeviceVulkanMemoryModelFeatures", unsafe.Sizeof(memoryModelFeatures{}), 32},
		{"VkPhysicalDeviceFeatures2", unsafe.Sizeof(physicalDeviceFeatures2{}), 240},
		{"VkPhysicalDeviceProperties2", unsafe.Sizeof(physicalDeviceProperties2{}), 840},
		{"VkPhysicalDeviceSubgroupProperties", unsafe.Sizeof(subgroupProperties{}), 32},
		{"VkExtensionProperties", unsafe.Sizeof(extensionProperties{}), 260},
		{"VkSpecializationMapEntry", unsafe.Sizeof(specMapEntry{}), 16},
		{"VkSpecializationInfo", unsafe.Sizeof(specializationInfo{}), 32},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}

// TestPickShape: the largest f16×f16+f32 subgroup shape whose sides divide 32; other
// component types, scopes and sides are skipped.
func TestPickShape(t *testing.T) {
	p := func(m, n, k, a, c, scope uint32) coopMatrixProperties {
		return coopMatrixProperties{m: m, n: n, k: k, aType: a, bType: a, cType: c, dType: c, scp: scope}
	}
	const h, f = componentFloat16, componentFloat32
	props := []coopMatrixProperties{
		p(16, 8, 16, h, f, scopeSubgroup), p(16, 8, 8, h, f, scopeSubgroup),
		p(16, 16, 16, h, h, scopeSubgroup), // f16 sums
		p(32, 32, 32, h, f, 2),             // workgroup scope
		p(16, 24, 16, h, f, scopeSubgroup), // 24 does not divide 32
	}
	if m, n, k, ok := pickShape(props); !ok || m != 16 || n != 8 || k != 16 {
		t.Errorf("pickShape = %d×%d×%d %v, want 16×8×16", m, n, k, ok)
	}
	props = append(props, p(16, 16, 16, h, f, scopeSubgroup))
	if m, n, k, _ := pickShape(props); m != 16 || n != 16 || k != 16 {
		t.Errorf("pickShape = %d×%d×%d, want 16×16×16", m, n, k)
	}
	if _, _, _, ok := pickShape(props[2:5]); ok {
		t.Error("pickShape found a shape among unusable ones")
	}
}

// TestProbeParts runs the parts of the matrix-unit probe that every Vulkan 1.1 device
// answers (lavapipe has no cooperative matrices): the extension list, the feature chain and
// the subgroup properties, read through the structures above.
func TestProbeParts(t *testing.T) {
	b := openTest(t).(*Backend)
	exts := deviceExtensions(b.f, b.pd.handle)
	if len(exts) == 0 {
		t.Error("no device extensions listed")
	}
	sg, compute := probeSubgroup(b.f, b.pd.handle)
	if sg == 0 || sg&(sg-1) != 0 || sg > 128 || !compute {
		t.Errorf("subgroups of %d invocations, in compute %v", sg, compute)
	}
	why := probeFeatures(b.f, b.pd.handle, false)
	t.Logf("%d extensions, subgroup %d, features: %q, units %v (%s)", len(exts), sg, why, b.units, b.unitsNote)
	if (exts["VK_NV_cooperative_matrix"] || exts["VK_KHR_cooperative_matrix"]) != (b.units != nil) &&
		b.unitsNote == "no matrix units (no VK_NV_cooperative_matrix or VK_KHR_cooperative_matrix)" {
		t.Errorf("the extension list and the probe disagree: %s", b.unitsNote)
	}
	if !exts["VK_NV_cooperative_matrix"] && why == "" {
		t.Error("the cooperativeMatrix feature is on without the extension")
	}
}
