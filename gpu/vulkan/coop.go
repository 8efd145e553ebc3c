//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"strings"
)

//lint:file-ignore U1000 the structs below mirror Vulkan's C layouts field for field: a field Go never names still holds its place in memory

// matrixUnits describes a device's cooperative matrices (VK_NV_cooperative_matrix, or
// VK_KHR_cooperative_matrix with khr: coopkhr.go) as the fast Linear uses them: the shape of
// one product (float16 A and B, float32 C and D, subgroup scope) and the subgroup size, which
// sizes the workgroup (four subgroups).
type matrixUnits struct {
	m, n, k  uint32
	subgroup uint32
	khr      bool
}

func (u *matrixUnits) String() string {
	if u.khr {
		return fmt.Sprintf("%d×%d×%d f16 cooperative matrices (%s)", u.m, u.n, u.k, extCoopMatrixKHRName)
	}
	return fmt.Sprintf("%d×%d×%d f16 cooperative matrices", u.m, u.n, u.k)
}

// The device extensions linearcm.comp needs, all enabled together: cooperative matrices,
// float16 arithmetic and the Vulkan memory model (glslang declares it for cooperative
// matrices).
var unitExtensions = []string{"VK_NV_cooperative_matrix", "VK_KHR_shader_float16_int8", "VK_KHR_vulkan_memory_model"}

// Structure types and enums of the probe (vulkan_core.h).
const (
	stPhysicalDeviceFeatures2   = 1000059000
	stPhysicalDeviceProperties2 = 1000059001
	stSubgroupProperties        = 1000094000
	stFloat16Int8Features       = 1000082000
	stVulkanMemoryModelFeatures = 1000211000
	stCoopMatrixFeaturesNV      = 1000249000
	stCoopMatrixPropertiesNV    = 1000249001

	componentFloat16 = 0 // VK_COMPONENT_TYPE_FLOAT16_NV
	componentFloat32 = 1 // VK_COMPONENT_TYPE_FLOAT32_NV
	scopeSubgroup    = 3 // VK_SCOPE_SUBGROUP_NV
)

type extensionProperties struct {
	name        [256]byte
	specVersion uint32
}

type coopMatrixProperties struct {
	sType                                    uint32
	pNext                                    uintptr
	m, n, k, aType, bType, cType, dType, scp uint32
}

type physicalDeviceFeatures2 struct {
	sType    uint32
	pNext    uintptr
	features [55]uint32 // VkPhysicalDeviceFeatures: none needed
}

type coopMatrixFeatures struct {
	sType                  uint32
	pNext                  uintptr
	cooperativeMatrix, rba uint32
}

type float16Int8Features struct {
	sType                    uint32
	pNext                    uintptr
	shaderFloat16, shaderInt uint32
}

type memoryModelFeatures struct {
	sType                        uint32
	pNext                        uintptr
	model, deviceScope, avChains uint32
}

type physicalDeviceProperties2 struct {
	sType uint32
	pNext uintptr
	props [propsSize]byte
}

type subgroupProperties struct {
	sType                               uint32
	pNext                               uintptr
	size, stages, operations, quadInAll uint32
}

// unitFeatures is the feature chain linearcm.comp needs: probed by probeUnits, then passed
// to vkCreateDevice with the features switched on. With khr, coop is
// VkPhysicalDeviceCooperativeMatrixFeaturesKHR (the same fields as NV's).
type unitFeatures struct {
	coop coopMatrixFeatures
	f16  float16Int8Features
	mm   memoryModelFeatures
	khr  bool
}

// chain links the structures (pinned) and returns the first.
func (u *unitFeatures) chain(ps *pins) uintptr {
	u.coop.sType, u.f16.sType, u.mm.sType = stCoopMatrixFeaturesNV, stFloat16Int8Features, stVulkanMemoryModelFeatures
	if u.khr {
		u.coop.sType = stCoopMatrixFeaturesKHR
	}
	u.mm.pNext = 0
	u.f16.pNext = ptr(ps, &u.mm)
	u.coop.pNext = ptr(ps, &u.f16)
	return ptr(ps, &u.coop)
}

// probeUnits returns the matrix units of physical device h, or nil and why the device has
// none usable by the fast Linear. They go through VK_KHR_cooperative_matrix where the device
// lacks the NV extension, or where forceKHR asks for it (coopkhr.go).
func probeUnits(f *vk, inst, h uintptr, forceKHR bool) (*matrixUnits, string) {
	if f.enumerateDeviceExtensionProperties == 0 || f.getPhysicalDeviceFeatures2 == 0 || f.getPhysicalDeviceProperties2 == 0 || f.getInstanceProcAddr == 0 {
		return nil, "the Vulkan loader is older than 1.1"
	}
	exts := deviceExtensions(f, h)
	if !exts[extCoopMatrixNVName] && !exts[extCoopMatrixKHRName] {
		return nil, "no " + extCoopMatrixNVName + " or " + extCoopMatrixKHRName
	}
	khr := useKHR(exts, forceKHR)
	for _, e := range unitExtensionsFor(khr) {
		if !exts[e] {
			return nil, "no " + e
		}
	}
	if why := probeFeatures(f, h, khr); why != "" {
		return nil, why
	}
	sg, stages := probeSubgroup(f, h)
	if sg == 0 || sg > 64 || !stages {
		return nil, fmt.Sprintf("subgroups of %d invocations, in compute shaders %v", sg, stages)
	}
	query := coopProperties
	if khr {
		query = coopPropertiesKHR
	}
	props, err := query(f, inst, h)
	if err != nil {
		return nil, err.Error()
	}
	m, n, k, ok := pickShape(props)
	if !ok {
		return nil, fmt.Sprintf("none of the %d cooperative matrix shapes is f16×f16+f32 with sides dividing 32", len(props))
	}
	return &matrixUnits{m: m, n: n, k: k, subgroup: sg, khr: khr}, ""
}

// probeFeatures returns why h lacks a feature linearcm.comp needs ("" when it has them all),
// with the NV or (khr) the KHR cooperative matrices.
func probeFeatures(f *vk, h uintptr, khr bool) string {
	var ps pins
	defer ps.p.Unpin()
	uf := &unitFeatures{khr: khr}
	f2 := &physicalDeviceFeatures2{sType: stPhysicalDeviceFeatures2, pNext: uf.chain(&ps)}
	vkcall(f.getPhysicalDeviceFeatures2, h, ptr(&ps, f2))
	switch {
	case uf.coop.cooperativeMatrix == 0:
		return "the cooperativeMatrix feature is off"
	case uf.f16.shaderFloat16 == 0:
		return "the shaderFloat16 feature is off"
	case uf.mm.model == 0:
		return "the vulkanMemoryModel feature is off"
	}
	return ""
}

// probeSubgroup returns h's subgroup size and whether compute shaders have subgroups.
func probeSubgroup(f *vk, h uintptr) (size uint32, compute bool) {
	var ps pins
	defer ps.p.Unpin()
	sg := &subgroupProperties{sType: stSubgroupProperties}
	p2 := &physicalDeviceProperties2{sType: stPhysicalDeviceProperties2, pNext: ptr(&ps, sg)}
	vkcall(f.getPhysicalDeviceProperties2, h, ptr(&ps, p2))
	return sg.size, sg.stages&stageCompute != 0
}

// deviceExtensions returns the names of h's device extensions.
func deviceExtensions(f *vk, h uintptr) map[string]bool {
	var ps pins
	defer ps.p.Unpin()
	var n uint32
	if r := int32(vkcall(f.enumerateDeviceExtensionProperties, h, 0, ptr(&ps, &n), 0)); r < 0 || n == 0 {
		return nil
	}
	props := make([]extensionProperties, n)
	if r := int32(vkcall(f.enumerateDeviceExtensionProperties, h, 0, ptr(&ps, &n), ptr(&ps, &props[0]))); r < 0 {
		return nil
	}
	out := map[string]bool{}
	for _, p := range props[:min(int(n), len(props))] {
		name := string(p.name[:])
		if i := strings.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		out[name] = true
	}
	return out
}

// coopProperties lists the cooperative matrix shapes h reports.
func coopProperties(f *vk, inst, h uintptr) ([]coopMatrixProperties, error) {
	var ps pins
	defer ps.p.Unpin()
	fn := vkcall(f.getInstanceProcAddr, inst, cstr(&ps, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"))
	if fn == 0 {
		return nil, fmt.Errorf("no vkGetPhysicalDeviceCooperativeMatrixPropertiesNV")
	}
	var n uint32
	if err := result("vkGetPhysicalDeviceCooperativeMatrixPropertiesNV", fn, h, ptr(&ps, &n), 0); err != nil {
		return nil, err
	}
	if n == 0 || n > 1024 {
		return nil, fmt.Errorf("%d cooperative matrix shapes reported", n)
	}
	props := make([]coopMatrixProperties, n)
	for i := range props {
		props[i].sType = stCoopMatrixPropertiesNV
	}
	if err := result("vkGetPhysicalDeviceCooperativeMatrixPropertiesNV", fn, h, ptr(&ps, &n), ptr(&ps, &props[0])); err != nil {
		return nil, err
	}
	return props[:min(int(n), len(props))], nil
}

// pickShape chooses the largest product M·N·K among the f16 A/B, f32 C/D, subgroup-scope
// shapes whose sides divide 32 (a subgroup's 32 × 32 block and the tile's k step).
func pickShape(props []coopMatrixProperties) (m, n, k uint32, ok bool) {
	for _, p := range props {
		if p.aType != componentFloat16 || p.bType != componentFloat16 || p.cType != componentFloat32 ||
			p.dType != componentFloat32 || p.scp != scopeSubgroup {
			continue
		}
		if p.m == 0 || p.n == 0 || p.k == 0 || 32%p.m != 0 || 32%p.n != 0 || 32%p.k != 0 {
			continue
		}
		if !ok || p.m*p.n*p.k > m*n*k {
			m, n, k, ok = p.m, p.n, p.k, true
		}
	}
	return m, n, k, ok
}
