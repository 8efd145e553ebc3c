//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import "encoding/binary"

// subgroups is what the backend uses of VkPhysicalDeviceSubgroupProperties.
type subgroups struct {
	size uint32
	// arith: compute shaders may use subgroup arithmetic (GL_KHR_shader_subgroup_arithmetic),
	// so the norms reduce within subgroups (normsg.comp) instead of through shared memory.
	arith bool
}

// Bits of the subgroup query (vulkan_core.h); its structure types are coop.go's.
const (
	subgroupBasic      = 0x1
	subgroupArithmetic = 0x4
)

// querySubgroups reads the subgroup properties of device h (none on a Vulkan 1.0 device or
// loader, which lack vkGetPhysicalDeviceProperties2).
func querySubgroups(f *vk, h uintptr) subgroups {
	var ps pins
	defer ps.p.Unpin()
	props := new([propsSize]byte)
	vkcall(f.getPhysicalDeviceProperties, h, ptr(&ps, props))
	if binary.LittleEndian.Uint32(props[0:]) < apiVersion11 || f.getPhysicalDeviceProperties2 == 0 {
		return subgroups{}
	}
	// VkPhysicalDeviceSubgroupProperties: sType, pNext, subgroupSize, supportedStages,
	// supportedOperations, quadOperationsInAllStages.
	sg := new([32]byte)
	binary.LittleEndian.PutUint32(sg[0:], stSubgroupProperties)
	// VkPhysicalDeviceProperties2: sType, pNext, properties.
	p2 := new([16 + propsSize]byte)
	binary.LittleEndian.PutUint32(p2[0:], stPhysicalDeviceProperties2)
	binary.LittleEndian.PutUint64(p2[8:], uint64(ptr(&ps, sg)))
	vkcall(f.getPhysicalDeviceProperties2, h, ptr(&ps, p2))
	le := binary.LittleEndian
	size, stages, ops := le.Uint32(sg[16:]), le.Uint32(sg[20:]), le.Uint32(sg[24:])
	need := uint32(subgroupBasic | subgroupArithmetic)
	return subgroups{size: size, arith: stages&stageCompute != 0 && ops&need == need && size > 0}
}
