//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"strings"
	"testing"
	"unsafe"
)

// TestStructLayout checks the structures against the sizes and offsets of vulkan_core.h
// (printed by a C program with sizeof and offsetof on linux/amd64).
func TestStructLayout(t *testing.T) {
	var cp computePipelineCreateInfo
	var w writeDescriptorSet
	var bc bufferCreateInfo
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof VkComputePipelineCreateInfo", unsafe.Sizeof(cp), 96},
		{"offsetof stage", unsafe.Offsetof(cp.stage), 24},
		{"offsetof layout", unsafe.Offsetof(cp.layout), 72},
		{"sizeof VkWriteDescriptorSet", unsafe.Sizeof(w), 64},
		{"offsetof pBufferInfo", unsafe.Offsetof(w.pBufferInfo), 48},
		{"sizeof VkSubmitInfo", unsafe.Sizeof(submitInfo{}), 72},
		{"sizeof VkBufferCreateInfo", unsafe.Sizeof(bc), 56},
		{"offsetof size", unsafe.Offsetof(bc.size), 24},
		{"sizeof VkQueueFamilyProperties", unsafe.Sizeof(queueFamilyProperties{}), 24},
		{"sizeof VkDescriptorSetLayoutBinding", unsafe.Sizeof(descriptorSetLayoutBinding{}), 24},
		{"sizeof VkMemoryBarrier", unsafe.Sizeof(memoryBarrier{}), 24},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestMissingLoader: without the Vulkan loader, opening fails with a message that names it
// and says what to install, and nothing panics.
func TestMissingLoader(t *testing.T) {
	_, err := loadNamed("libvulkan-missing-for-test.so.1")
	if err == nil || !strings.Contains(err.Error(), "no Vulkan loader") || !strings.Contains(err.Error(), "install") {
		t.Fatalf("loadNamed of a missing file: %v", err)
	}
}
