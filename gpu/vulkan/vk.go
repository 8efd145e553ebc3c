//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

//lint:file-ignore U1000 the structs below mirror Vulkan's C layouts field for field: a field Go never names still holds its place in memory

// vk holds the entry points of the Vulkan loader used here (all core 1.0, exported by the
// loader itself).
type vk struct {
	createInstance, destroyInstance, enumeratePhysicalDevices, getPhysicalDeviceProperties,
	getPhysicalDeviceQueueFamilyProperties, getPhysicalDeviceMemoryProperties,
	createDevice, destroyDevice, getDeviceQueue, deviceWaitIdle,
	createBuffer, destroyBuffer, getBufferMemoryRequirements, allocateMemory, freeMemory,
	bindBufferMemory, mapMemory, unmapMemory,
	createShaderModule, destroyShaderModule, createDescriptorSetLayout, destroyDescriptorSetLayout,
	createPipelineLayout, destroyPipelineLayout, createComputePipelines, destroyPipeline,
	createDescriptorPool, destroyDescriptorPool, resetDescriptorPool, allocateDescriptorSets,
	updateDescriptorSets, createCommandPool, destroyCommandPool, allocateCommandBuffers,
	beginCommandBuffer, endCommandBuffer, resetCommandBuffer,
	cmdBindPipeline, cmdBindDescriptorSets, cmdPushConstants, cmdDispatch, cmdPipelineBarrier,
	cmdCopyBuffer, queueSubmit, createFence, destroyFence, waitForFences, resetFences uintptr

	// Optional (0 when the loader lacks them): what the probes for subgroups and matrix
	// units need (subgroup.go, coop.go); vkGetPhysicalDeviceCooperativeMatrixProperties{NV,KHR}
	// come from vkGetInstanceProcAddr.
	enumerateDeviceExtensionProperties, getPhysicalDeviceFeatures2, getPhysicalDeviceProperties2,
	getInstanceProcAddr uintptr

	ext vkExt // the later stages' entry points (vk_ext.go)
}

// loadVK opens the loader and resolves the entry points.
func loadVK() (*vk, error) { return loadNamed(libName) }

// loadNamed opens the loader file name and resolves the entry points.
func loadNamed(name string) (*vk, error) {
	sym, err := openLibrary(name)
	if err != nil {
		return nil, err
	}
	f := &vk{}
	for sname, p := range f.required() {
		if *p, err = sym(sname); err != nil || *p == 0 {
			return nil, fmt.Errorf("vulkan: the loader %s lacks %s: %v", name, sname, err)
		}
	}
	for sname, p := range f.optional() {
		if v, err := sym(sname); err == nil {
			*p = v
		}
	}
	if err := f.ext.load(sym, name); err != nil {
		return nil, err
	}
	return f, nil
}

// required maps the name of each entry point the backend cannot do without to its field.
func (f *vk) required() map[string]*uintptr {
	return map[string]*uintptr{
		"vkCreateInstance": &f.createInstance, "vkDestroyInstance": &f.destroyInstance,
		"vkEnumeratePhysicalDevices": &f.enumeratePhysicalDevices, "vkGetPhysicalDeviceProperties": &f.getPhysicalDeviceProperties,
		"vkGetPhysicalDeviceQueueFamilyProperties": &f.getPhysicalDeviceQueueFamilyProperties,
		"vkGetPhysicalDeviceMemoryProperties":      &f.getPhysicalDeviceMemoryProperties,
		"vkCreateDevice":                           &f.createDevice, "vkDestroyDevice": &f.destroyDevice, "vkGetDeviceQueue": &f.getDeviceQueue,
		"vkDeviceWaitIdle": &f.deviceWaitIdle, "vkCreateBuffer": &f.createBuffer, "vkDestroyBuffer": &f.destroyBuffer,
		"vkGetBufferMemoryRequirements": &f.getBufferMemoryRequirements, "vkAllocateMemory": &f.allocateMemory,
		"vkFreeMemory": &f.freeMemory, "vkBindBufferMemory": &f.bindBufferMemory, "vkMapMemory": &f.mapMemory,
		"vkUnmapMemory": &f.unmapMemory, "vkCreateShaderModule": &f.createShaderModule,
		"vkDestroyShaderModule": &f.destroyShaderModule, "vkCreateDescriptorSetLayout": &f.createDescriptorSetLayout,
		"vkDestroyDescriptorSetLayout": &f.destroyDescriptorSetLayout, "vkCreatePipelineLayout": &f.createPipelineLayout,
		"vkDestroyPipelineLayout": &f.destroyPipelineLayout, "vkCreateComputePipelines": &f.createComputePipelines,
		"vkDestroyPipeline": &f.destroyPipeline, "vkCreateDescriptorPool": &f.createDescriptorPool,
		"vkDestroyDescriptorPool": &f.destroyDescriptorPool, "vkResetDescriptorPool": &f.resetDescriptorPool,
		"vkAllocateDescriptorSets": &f.allocateDescriptorSets, "vkUpdateDescriptorSets": &f.updateDescriptorSets,
		"vkCreateCommandPool": &f.createCommandPool, "vkDestroyCommandPool": &f.destroyCommandPool,
		"vkAllocateCommandBuffers": &f.allocateCommandBuffers, "vkBeginCommandBuffer": &f.beginCommandBuffer,
		"vkEndCommandBuffer": &f.endCommandBuffer, "vkResetCommandBuffer": &f.resetCommandBuffer,
		"vkCmdBindPipeline": &f.cmdBindPipeline, "vkCmdBindDescriptorSets": &f.cmdBindDescriptorSets,
		"vkCmdPushConstants": &f.cmdPushConstants, "vkCmdDispatch": &f.cmdDispatch,
		"vkCmdPipelineBarrier": &f.cmdPipelineBarrier, "vkCmdCopyBuffer": &f.cmdCopyBuffer,
		"vkQueueSubmit": &f.queueSubmit, "vkCreateFence": &f.createFence, "vkDestroyFence": &f.destroyFence,
		"vkWaitForFences": &f.waitForFences, "vkResetFences": &f.resetFences,
	}
}

// optional maps the name of each entry point that may be missing (left 0) to its field:
// what the probes for subgroups and matrix units need (coop.go, subgroup.go).
func (f *vk) optional() map[string]*uintptr {
	return map[string]*uintptr{
		"vkEnumerateDeviceExtensionProperties": &f.enumerateDeviceExtensionProperties,
		"vkGetPhysicalDeviceFeatures2":         &f.getPhysicalDeviceFeatures2,
		"vkGetPhysicalDeviceProperties2":       &f.getPhysicalDeviceProperties2,
		"vkGetInstanceProcAddr":                &f.getInstanceProcAddr,
	}
}

// call invokes a Vulkan entry point; every argument is an integer, a handle or a pointer
// (pinned by the caller).
func vkcall(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// result invokes an entry point returning a VkResult and turns a failure into an error.
func result(what string, fn uintptr, args ...uintptr) error {
	if r := int32(vkcall(fn, args...)); r < 0 {
		return vkError{what, r}
	}
	return nil
}

// vkError is a failed Vulkan call.
type vkError struct {
	what string
	code int32
}

func (e vkError) Error() string {
	name := map[int32]string{-1: "out of host memory", -2: "out of device memory", -3: "initialization failed",
		-4: "device lost", -5: "memory map failed", -6: "layer not present", -7: "extension not present",
		-8: "feature not present", -9: "incompatible driver", -10: "too many objects", -1000069000: "out of pool memory"}[e.code]
	if name == "" {
		name = fmt.Sprintf("VkResult %d", e.code)
	}
	return fmt.Sprintf("vulkan: %s: %s", e.what, name)
}

// deviceLost reports whether err is VK_ERROR_DEVICE_LOST.
func deviceLost(err error) bool {
	e, ok := err.(vkError)
	return ok && e.code == -4
}

// pins keeps the Go memory a call reads (structures and what they point to) in place.
type pins struct{ p runtime.Pinner }

// ptr pins the object v points to and returns its address.
func ptr[T any](ps *pins, v *T) uintptr {
	if v == nil {
		return 0
	}
	ps.p.Pin(v)
	return uintptr(unsafe.Pointer(v))
}

// cstr returns the address of a NUL-terminated copy of s.
func cstr(ps *pins, s string) uintptr {
	b := append([]byte(s), 0)
	return ptr(ps, &b[0])
}

// The structure types, flags and constants used (vulkan_core.h).
const (
	stApplicationInfo          = 0
	stInstanceCreateInfo       = 1
	stDeviceQueueCreateInfo    = 2
	stDeviceCreateInfo         = 3
	stSubmitInfo               = 4
	stMemoryAllocateInfo       = 5
	stFenceCreateInfo          = 8
	stBufferCreateInfo         = 12
	stShaderModuleCreateInfo   = 16
	stPipelineShaderStage      = 18
	stComputePipelineCreate    = 29
	stPipelineLayoutCreate     = 30
	stDescriptorSetLayoutCrt   = 32
	stDescriptorPoolCreateInfo = 33
	stDescriptorSetAllocate    = 34
	stWriteDescriptorSet       = 35
	stCommandPoolCreateInfo    = 39
	stCommandBufferAllocate    = 40
	stCommandBufferBegin       = 42
	stMemoryBarrier            = 46

	queueCompute = 0x2

	memDeviceLocal  = 0x1
	memHostVisible  = 0x2
	memHostCoherent = 0x4
	memHostCached   = 0x8

	bufTransferSrc = 0x1
	bufTransferDst = 0x2
	bufStorage     = 0x20

	descStorageBuffer = 7
	stageCompute      = 0x20
	bindCompute       = 1

	pipeStageCompute  = 0x800
	pipeStageTransfer = 0x1000
	pipeStageHost     = 0x4000

	accShaderRead    = 0x20
	accShaderWrite   = 0x40
	accTransferRead  = 0x800
	accTransferWrite = 0x1000
	accHostRead      = 0x2000

	apiVersion11 = 1<<22 | 1<<12
)

type applicationInfo struct {
	sType              uint32
	pNext              uintptr
	pApplicationName   uintptr
	applicationVersion uint32
	pEngineName        uintptr
	engineVersion      uint32
	apiVersion         uint32
}

type instanceCreateInfo struct {
	sType                   uint32
	pNext                   uintptr
	flags                   uint32
	pApplicationInfo        uintptr
	enabledLayerCount       uint32
	ppEnabledLayerNames     uintptr
	enabledExtensionCount   uint32
	ppEnabledExtensionNames uintptr
}

type deviceQueueCreateInfo struct {
	sType            uint32
	pNext            uintptr
	flags            uint32
	queueFamilyIndex uint32
	queueCount       uint32
	pQueuePriorities uintptr
}

type deviceCreateInfo struct {
	sType                   uint32
	pNext                   uintptr
	flags                   uint32
	queueCreateInfoCount    uint32
	pQueueCreateInfos       uintptr
	enabledLayerCount       uint32
	ppEnabledLayerNames     uintptr
	enabledExtensionCount   uint32
	ppEnabledExtensionNames uintptr
	pEnabledFeatures        uintptr
}

type queueFamilyProperties struct {
	queueFlags, queueCount, timestampValidBits uint32
	granularity                                [3]uint32
}

type bufferCreateInfo struct {
	sType                 uint32
	pNext                 uintptr
	flags                 uint32
	size                  uint64
	usage                 uint32
	sharingMode           uint32
	queueFamilyIndexCount uint32
	pQueueFamilyIndices   uintptr
}

type memoryRequirements struct {
	size, alignment uint64
	memoryTypeBits  uint32
}

type memoryAllocateInfo struct {
	sType           uint32
	pNext           uintptr
	allocationSize  uint64
	memoryTypeIndex uint32
}

type shaderModuleCreateInfo struct {
	sType    uint32
	pNext    uintptr
	flags    uint32
	codeSize uintptr
	pCode    uintptr
}

type descriptorSetLayoutBinding struct {
	binding, descriptorType, descriptorCount, stageFlags uint32
	pImmutableSamplers                                   uintptr
}

type descriptorSetLayoutCreateInfo struct {
	sType        uint32
	pNext        uintptr
	flags        uint32
	bindingCount uint32
	pBindings    uintptr
}

type pushConstantRange struct{ stageFlags, offset, size uint32 }

type pipelineLayoutCreateInfo struct {
	sType                  uint32
	pNext                  uintptr
	flags                  uint32
	setLayoutCount         uint32
	pSetLayouts            uintptr
	pushConstantRangeCount uint32
	pPushConstantRanges    uintptr
}

type pipelineShaderStageCreateInfo struct {
	sType               uint32
	pNext               uintptr
	flags               uint32
	stage               uint32
	module              uint64
	pName               uintptr
	pSpecializationInfo uintptr
}

type computePipelineCreateInfo struct {
	sType              uint32
	pNext              uintptr
	flags              uint32
	stage              pipelineShaderStageCreateInfo
	layout             uint64
	basePipelineHandle uint64
	basePipelineIndex  int32
}

type specMapEntry struct {
	constantID, offset uint32
	size               uintptr
}

type specializationInfo struct {
	mapEntryCount uint32
	pMapEntries   uintptr
	dataSize      uintptr
	pData         uintptr
}

type descriptorPoolSize struct{ typ, count uint32 }

type descriptorPoolCreateInfo struct {
	sType         uint32
	pNext         uintptr
	flags         uint32
	maxSets       uint32
	poolSizeCount uint32
	pPoolSizes    uintptr
}

type descriptorSetAllocateInfo struct {
	sType              uint32
	pNext              uintptr
	descriptorPool     uint64
	descriptorSetCount uint32
	pSetLayouts        uintptr
}

type descriptorBufferInfo struct{ buffer, offset, rng uint64 }

type writeDescriptorSet struct {
	sType            uint32
	pNext            uintptr
	dstSet           uint64
	dstBinding       uint32
	dstArrayElement  uint32
	descriptorCount  uint32
	descriptorType   uint32
	pImageInfo       uintptr
	pBufferInfo      uintptr
	pTexelBufferView uintptr
}

type commandPoolCreateInfo struct {
	sType            uint32
	pNext            uintptr
	flags            uint32
	queueFamilyIndex uint32
}

type commandBufferAllocateInfo struct {
	sType              uint32
	pNext              uintptr
	commandPool        uint64
	level              uint32
	commandBufferCount uint32
}

type commandBufferBeginInfo struct {
	sType            uint32
	pNext            uintptr
	flags            uint32
	pInheritanceInfo uintptr
}

type memoryBarrier struct {
	sType         uint32
	pNext         uintptr
	srcAccessMask uint32
	dstAccessMask uint32
}

type bufferCopy struct{ srcOffset, dstOffset, size uint64 }

type submitInfo struct {
	sType                uint32
	pNext                uintptr
	waitSemaphoreCount   uint32
	pWaitSemaphores      uintptr
	pWaitDstStageMask    uintptr
	commandBufferCount   uint32
	pCommandBuffers      uintptr
	signalSemaphoreCount uint32
	pSignalSemaphores    uintptr
}

type fenceCreateInfo struct {
	sType uint32
	pNext uintptr
	flags uint32
}
