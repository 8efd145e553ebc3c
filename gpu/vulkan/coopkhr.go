//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"os"
)

//lint:file-ignore U1000 the struct below mirrors Vulkan's C layout field for field: a field Go never names still holds its place in memory

// The matrix units through VK_KHR_cooperative_matrix, for devices without the NV extension
// (AMD, Intel): the same kernels, their SPIR-V rewritten from NV into KHR (spirvkhr.go)
// when the pipeline is built. On a device with both the NV path stays the default;
// Options.CoopKHR or KLEINBILD_VULKAN_COOP=khr choose KHR there, so that a card with both
// (NVIDIA) checks the rewritten kernels against their twins (devices --selfcheck).
//
// Not yet run on any card: no AMD, Intel or NVIDIA device has met this path.

// coopEnv is the environment variable that chooses the KHR extension where both exist.
const coopEnv = "KLEINBILD_VULKAN_COOP"

// Structure types and the device extension of VK_KHR_cooperative_matrix (vulkan_core.h).
const (
	stCoopMatrixFeaturesKHR   = 1000506000
	stCoopMatrixPropertiesKHR = 1000506001
	extCoopMatrixNVName       = "VK_NV_cooperative_matrix"
	extCoopMatrixKHRName      = "VK_KHR_cooperative_matrix"
)

// coopMatrixPropertiesKHR is VkCooperativeMatrixPropertiesKHR.
type coopMatrixPropertiesKHR struct {
	sType                                    uint32
	pNext                                    uintptr
	m, n, k, aType, bType, cType, resultType uint32
	saturating, scp                          uint32
}

// forceKHR reports whether the KHR extension is chosen where both exist.
func forceKHR(opts Options) bool { return opts.CoopKHR || os.Getenv(coopEnv) == "khr" }

// useKHR reports whether the matrix units go through VK_KHR_cooperative_matrix on a device
// with extensions exts: where it lacks the NV one, or where force asks for KHR.
func useKHR(exts map[string]bool, force bool) bool {
	return exts[extCoopMatrixKHRName] && (force || !exts[extCoopMatrixNVName])
}

// unitExtensionsFor returns the device extensions the matrix-unit kernels need with the NV
// or (khr) the KHR cooperative matrices.
func unitExtensionsFor(khr bool) []string {
	if !khr {
		return unitExtensions
	}
	out := append([]string(nil), unitExtensions...)
	for i, e := range out {
		if e == extCoopMatrixNVName {
			out[i] = extCoopMatrixKHRName
		}
	}
	return out
}

// coopPropertiesKHR lists the cooperative matrix shapes h reports through
// vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR, in the NV structure's fields (the
// component and scope enums have the same values).
func coopPropertiesKHR(f *vk, inst, h uintptr) ([]coopMatrixProperties, error) {
	var ps pins
	defer ps.p.Unpin()
	const name = "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"
	fn := vkcall(f.getInstanceProcAddr, inst, cstr(&ps, name))
	if fn == 0 {
		return nil, fmt.Errorf("no %s", name)
	}
	var n uint32
	if err := result(name, fn, h, ptr(&ps, &n), 0); err != nil {
		return nil, err
	}
	if n == 0 || n > 1024 {
		return nil, fmt.Errorf("%d cooperative matrix shapes reported", n)
	}
	props := make([]coopMatrixPropertiesKHR, n)
	for i := range props {
		props[i].sType = stCoopMatrixPropertiesKHR
	}
	if err := result(name, fn, h, ptr(&ps, &n), ptr(&ps, &props[0])); err != nil {
		return nil, err
	}
	out := make([]coopMatrixProperties, 0, n)
	for _, p := range props[:min(int(n), len(props))] {
		out = append(out, coopMatrixProperties{m: p.m, n: p.n, k: p.k, aType: p.aType, bType: p.bType,
			cType: p.cType, dType: p.resultType, scp: p.scp})
	}
	return out, nil
}

// kernelSPIRV returns the words of a kernel for this device: NV cooperative-matrix modules
// rewritten into KHR where the units go through VK_KHR_cooperative_matrix, else words.
func (b *Backend) kernelSPIRV(words []uint32) ([]uint32, error) {
	if b.units == nil || !b.units.khr || !declaresNVCoop(words) {
		return words, nil
	}
	out, err := nvToKHR(words)
	if err != nil {
		return nil, fmt.Errorf("rewriting it for %s: %w", extCoopMatrixKHRName, err)
	}
	return out, nil
}
