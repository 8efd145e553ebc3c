//go:build cgo

package webgpu

/*
#include <stdint.h>
#include <stddef.h>

// wgpuCreateInstance of wgpu-native (linked through package wgpu, which calls it itself),
// with webgpu.h's and wgpu.h's descriptor layouts: WGPUChainedStruct, WGPUInstanceExtras
// (sType WGPUSType_InstanceExtras = 0x00030006) and WGPUInstanceDescriptor.
typedef struct kbChained {
	const struct kbChained *next;
	uint32_t sType;
} kbChained;
typedef struct {
	kbChained chain;
	uint32_t backends;
	uint32_t flags;
	uint32_t dx12ShaderCompiler;
	uint32_t gles3MinorVersion;
	const char *dxilPath;
	const char *dxcPath;
} kbInstanceExtras;
typedef struct {
	const kbChained *nextInChain;
} kbInstanceDescriptor;
extern void *wgpuCreateInstance(const kbInstanceDescriptor *descriptor);

// kb_create_instance creates an instance of the given backends, every other field zero
// (the binding's CreateInstance leaves flags and paths uninitialised).
static void *kb_create_instance(uint32_t backends) {
	kbInstanceExtras extras = {0};
	extras.chain.sType = 0x00030006;
	extras.backends = backends;
	kbInstanceDescriptor desc = {&extras.chain};
	return wgpuCreateInstance(&desc);
}
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// instanceBackends are the APIs Kleinbild runs on: Vulkan, Metal, Direct3D 12. OpenGL is left
// out: wgpu-hal's EGL probe panics (an abort, not an error) in a broken GL environment,
// e.g. __EGL_VENDOR_LIBRARY_FILENAMES naming a missing file (gfx-rs/wgpu#6165).
const instanceBackends = wgpu.InstanceBackendVulkan | wgpu.InstanceBackendMetal | wgpu.InstanceBackendDX12

// newInstance creates a wgpu instance of instanceBackends alone. Package wgpu takes no
// backend flags without also passing uninitialised fields, so the instance is created here
// and handed to a wgpu.Instance, whose only field is the native handle.
func newInstance() (*wgpu.Instance, error) {
	quietLogs()
	if unsafe.Sizeof(wgpu.Instance{}) != unsafe.Sizeof(uintptr(0)) {
		// Another binding layout: its own constructor, backends still restricted.
		return wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: instanceBackends}), nil
	}
	ref := C.kb_create_instance(C.uint32_t(instanceBackends))
	if ref == nil {
		return nil, errors.New("webgpu: cannot create an instance")
	}
	inst := new(wgpu.Instance)
	*(*unsafe.Pointer)(unsafe.Pointer(inst)) = ref
	return inst, nil
}
