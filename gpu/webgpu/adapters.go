//go:build cgo

package webgpu

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cogentcore/webgpu/wgpu"

	"kleinbild/gpu"
)

// Adapters lists every WebGPU adapter of the primary APIs (Vulkan, Metal, Direct3D 12) in the
// order Options.Adapter indexes them. No adapter is not an error: the list is empty.
func Adapters() ([]gpu.DeviceInfo, error) {
	ads, err := AdapterDetails()
	infos := make([]gpu.DeviceInfo, len(ads))
	for i, a := range ads {
		infos[i] = a.Info
	}
	return infos, err
}

// AdapterDetails lists the adapters as Adapters does, with what the device list and the
// tuning cache need beyond gpu.DeviceInfo.
func AdapterDetails() ([]Adapter, error) {
	inst, err := newInstance()
	if err != nil {
		return nil, err
	}
	defer inst.Release()
	ads := inst.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: wgpu.InstanceBackendPrimary})
	out := make([]Adapter, len(ads))
	for i, a := range ads {
		out[i] = describeAdapter(a)
		out[i].index = i
		a.Release()
	}
	return out, nil
}

// describeAdapter describes a, with its device memory where the platform reports it
// (limits_mem.go).
func describeAdapter(a *wgpu.Adapter) Adapter {
	ai := a.GetInfo()
	info := adapterInfo(ai)
	mem, src := deviceMemory(ai.VendorId, ai.DeviceId, info.Kind)
	info.MemoryBytes = mem
	lim := openLimits(a.GetLimits().Limits, mem, envDefaultLimits())
	info.MaxBufferBytes = int64(lim.MaxBufferSize)
	info.MaxBindingBytes = int64(lim.MaxStorageBufferBindingSize)
	return Adapter{Info: info, MemorySource: src, Driver: ai.DriverDescription,
		VendorID: ai.VendorId, DeviceID: ai.DeviceId, key: adapterKey(ai)}
}

// adapterKey identifies an adapter and its driver for the tuning cache.
func adapterKey(ai wgpu.AdapterInfo) string {
	return fmt.Sprintf("%04x:%04x|%d|%s|%s|%s", ai.VendorId, ai.DeviceId, ai.BackendType, ai.Name, ai.DriverDescription, ai.Architecture)
}

// adapterInfo describes a from its info ai (MemoryBytes and the limits: see
// describeAdapter).
func adapterInfo(ai wgpu.AdapterInfo) gpu.DeviceInfo {
	name := adapterName(ai.Name, ai.DriverDescription, ai.VendorId, ai.DeviceId)
	kind := gpu.KindOther
	switch ai.AdapterType {
	case wgpu.AdapterTypeDiscreteGPU:
		kind = gpu.KindDiscrete
	case wgpu.AdapterTypeIntegratedGPU:
		kind = gpu.KindIntegrated
	case wgpu.AdapterTypeCPU:
		kind = gpu.KindSoftware
	}
	api := "other"
	switch ai.BackendType {
	case wgpu.BackendTypeVulkan:
		api = "Vulkan"
	case wgpu.BackendTypeMetal:
		api = "Metal"
	case wgpu.BackendTypeD3D12:
		api = "D3D12"
	case wgpu.BackendTypeD3D11:
		api = "D3D11"
	case wgpu.BackendTypeOpenGL, wgpu.BackendTypeOpenGLES:
		api = "OpenGL"
	}
	return gpu.DeviceInfo{Name: name, Kind: kind, API: api}
}

// kindRank orders adapter kinds for Options.Adapter = -1 (lower is better).
func kindRank(k gpu.DeviceKind) int {
	switch k {
	case gpu.KindDiscrete:
		return 0
	case gpu.KindIntegrated:
		return 1
	case gpu.KindSoftware:
		return 3
	}
	return 2
}

// pickAdapter returns the index of the best adapter of infos (stable: the first of the best
// kind), or -1 when there is none.
func pickAdapter(infos []gpu.DeviceInfo) int {
	if len(infos) == 0 {
		return -1
	}
	idx := make([]int, len(infos))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(kindRank(infos[a].Kind), kindRank(infos[b].Kind)) })
	return idx[0]
}

// quietLogs keeps wgpu-native's warnings ("No config found!", missing Vulkan extensions)
// off stderr: they mean nothing to a user; errors still reach the backend's error scopes.
// The level is the native library's process-wide setting; setting it again is harmless.
func quietLogs() { wgpu.SetLogLevel(wgpu.LogLevelError) }
