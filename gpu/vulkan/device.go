//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"unsafe"

	"kleinbild/gpu"
)

// loadOnce opens the Vulkan loader once per process (a library is process-wide by nature).
var loadOnce = sync.OnceValues(loadVK)

// physical is a physical device with what the backend uses of its properties.
type physical struct {
	handle uintptr
	info   gpu.DeviceInfo
	lim    limits
	mem    [520]byte // VkPhysicalDeviceMemoryProperties
}

// limits are the device limits the backend respects.
type limits struct {
	maxStorageRange  uint64
	maxPush          uint32
	maxShared        uint32
	maxGroups        [3]uint32
	maxInvocations   uint32
	storageAlign     uint64
	timestampPeriod  float32
	maxAllocBytes    uint64
	timestampCompute bool
}

// Offsets in VkPhysicalDeviceProperties (vulkan_core.h, 64-bit).
const (
	propsSize        = 824
	offDeviceType    = 16
	offDeviceName    = 20
	offStorageRange  = 324
	offMaxPush       = 328
	offMaxShared     = 512
	offGroupCount    = 516
	offInvocations   = 528
	offStorageAlign  = 624
	offTimestampComp = 716
	offTimestampPer  = 720
)

// newInstance creates a Vulkan 1.1 instance without layers or extensions.
func newInstance(f *vk) (uintptr, error) {
	var ps pins
	defer ps.p.Unpin()
	app := &applicationInfo{sType: stApplicationInfo, pApplicationName: cstr(&ps, "kleinbild"), pEngineName: cstr(&ps, "kleinbild"), apiVersion: apiVersion11}
	ci := &instanceCreateInfo{sType: stInstanceCreateInfo, pApplicationInfo: ptr(&ps, app)}
	var inst uintptr
	if err := result("vkCreateInstance", f.createInstance, ptr(&ps, ci), 0, ptr(&ps, &inst)); err != nil {
		return 0, fmt.Errorf("%w (no Vulkan driver? Debian: mesa-vulkan-drivers)", err)
	}
	return inst, nil
}

// physicalDevices lists the instance's devices.
func physicalDevices(f *vk, inst uintptr) ([]physical, error) {
	var ps pins
	defer ps.p.Unpin()
	var n uint32
	if err := result("vkEnumeratePhysicalDevices", f.enumeratePhysicalDevices, inst, ptr(&ps, &n), 0); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	hs := make([]uintptr, n)
	if err := result("vkEnumeratePhysicalDevices", f.enumeratePhysicalDevices, inst, ptr(&ps, &n), ptr(&ps, &hs[0])); err != nil {
		return nil, err
	}
	out := make([]physical, 0, n)
	for _, h := range hs[:n] {
		out = append(out, describe(f, h))
	}
	return out, nil
}

// describe reads a physical device's properties, limits and memory heaps.
func describe(f *vk, h uintptr) physical {
	var ps pins
	defer ps.p.Unpin()
	props := new([propsSize]byte)
	vkcall(f.getPhysicalDeviceProperties, h, ptr(&ps, props))
	pd := physical{handle: h}
	vkcall(f.getPhysicalDeviceMemoryProperties, h, ptr(&ps, &pd.mem))
	le := binary.LittleEndian
	u32 := func(off int) uint32 { return le.Uint32(props[off:]) }
	name := props[offDeviceName : offDeviceName+256]
	if i := strings.IndexByte(string(name), 0); i >= 0 {
		name = name[:i]
	}
	pd.lim = limits{
		maxStorageRange:  uint64(u32(offStorageRange)),
		maxPush:          u32(offMaxPush),
		maxShared:        u32(offMaxShared),
		maxGroups:        [3]uint32{u32(offGroupCount), u32(offGroupCount + 4), u32(offGroupCount + 8)},
		maxInvocations:   u32(offInvocations),
		storageAlign:     le.Uint64(props[offStorageAlign:]),
		timestampPeriod:  math.Float32frombits(u32(offTimestampPer)),
		timestampCompute: u32(offTimestampComp) != 0,
		maxAllocBytes:    1 << 30, // the Vulkan 1.1 minimum of maxMemoryAllocationSize
	}
	kind := map[uint32]gpu.DeviceKind{1: gpu.KindIntegrated, 2: gpu.KindDiscrete, 4: gpu.KindSoftware}[u32(offDeviceType)]
	if kind == "" {
		kind = gpu.KindOther
	}
	var heap int64
	nh := le.Uint32(pd.mem[260:])
	for i := range min(nh, 16) {
		size, flags := le.Uint64(pd.mem[264+16*i:]), le.Uint32(pd.mem[272+16*i:])
		if flags&1 != 0 { // VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
			heap = max(heap, int64(size))
		}
	}
	pd.info = gpu.DeviceInfo{
		Name: string(name), Kind: kind, API: "Vulkan", MemoryBytes: heap,
		MaxBufferBytes: int64(pd.lim.maxAllocBytes), MaxBindingBytes: int64(pd.lim.maxStorageRange),
	}
	return pd
}

// memoryType returns the index of a memory type allowed by bits having all of want (and,
// when possible, all of prefer), or -1.
func (pd *physical) memoryType(bits, want, prefer uint32) int {
	le := binary.LittleEndian
	n := le.Uint32(pd.mem[0:])
	best := -1
	for i := range min(n, 32) {
		flags := le.Uint32(pd.mem[4+8*i:])
		if bits&(1<<i) == 0 || flags&want != want {
			continue
		}
		if flags&prefer == prefer {
			return int(i)
		}
		if best < 0 {
			best = int(i)
		}
	}
	return best
}

// rank orders device kinds for the default choice: discrete, integrated, other, software.
func rank(k gpu.DeviceKind) int {
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

// pick returns the index of the best device (the first of the best kind), -1 for none.
func pick(infos []gpu.DeviceInfo) int {
	best := -1
	for i, in := range infos {
		if best < 0 || rank(in.Kind) < rank(infos[best].Kind) {
			best = i
		}
	}
	return best
}

// Devices lists the Vulkan devices of this machine (an error when Vulkan does not load).
func Devices() ([]gpu.DeviceInfo, error) {
	return eachDevice(func(_ *vk, _ uintptr, pd physical) gpu.DeviceInfo { return pd.info })
}

// eachDevice loads Vulkan, makes an instance and returns describe of each of its devices, in
// the order Devices lists them; the instance is destroyed before it returns.
func eachDevice[T any](describe func(f *vk, inst uintptr, pd physical) T) ([]T, error) {
	f, err := loadOnce()
	if err != nil {
		return nil, err
	}
	inst, err := newInstance(f)
	if err != nil {
		return nil, err
	}
	defer vkcall(f.destroyInstance, inst, 0)
	pds, err := physicalDevices(f, inst)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(pds))
	for i, pd := range pds {
		out[i] = describe(f, inst, pd)
	}
	return out, nil
}

// computeFamily returns the first queue family with compute, -1 for none.
func computeFamily(f *vk, h uintptr) int {
	var ps pins
	defer ps.p.Unpin()
	var n uint32
	vkcall(f.getPhysicalDeviceQueueFamilyProperties, h, ptr(&ps, &n), 0)
	if n == 0 {
		return -1
	}
	fams := make([]queueFamilyProperties, n)
	vkcall(f.getPhysicalDeviceQueueFamilyProperties, h, ptr(&ps, &n), ptr(&ps, &fams[0]))
	for i, q := range fams[:n] {
		if q.queueFlags&queueCompute != 0 && q.queueCount > 0 {
			return i
		}
	}
	return -1
}

// createDevice creates a logical device with one queue of family fam; with units, the
// extensions and features of the matrix-unit kernels are enabled (only where probeUnits
// found them all).
func createDevice(f *vk, h uintptr, fam int, units *matrixUnits) (dev, queue uintptr, err error) {
	var ps pins
	defer ps.p.Unpin()
	prio := new(float32)
	*prio = 1
	qci := &deviceQueueCreateInfo{sType: stDeviceQueueCreateInfo, queueFamilyIndex: uint32(fam), queueCount: 1, pQueuePriorities: ptr(&ps, prio)}
	dci := &deviceCreateInfo{sType: stDeviceCreateInfo, queueCreateInfoCount: 1, pQueueCreateInfos: ptr(&ps, qci)}
	if units != nil {
		exts := unitExtensionsFor(units.khr)
		names := make([]uintptr, len(exts))
		for i, e := range exts {
			names[i] = cstr(&ps, e)
		}
		uf := &unitFeatures{khr: units.khr}
		uf.coop.cooperativeMatrix, uf.f16.shaderFloat16, uf.mm.model = 1, 1, 1
		dci.pNext = uf.chain(&ps)
		dci.enabledExtensionCount, dci.ppEnabledExtensionNames = uint32(len(names)), ptr(&ps, &names[0])
	}
	if err := result("vkCreateDevice", f.createDevice, h, ptr(&ps, dci), 0, ptr(&ps, &dev)); err != nil {
		return 0, 0, err
	}
	vkcall(f.getDeviceQueue, dev, uintptr(fam), 0, ptr(&ps, &queue))
	if queue == 0 {
		vkcall(f.destroyDevice, dev, 0)
		return 0, 0, errors.New("vulkan: vkGetDeviceQueue returned no queue")
	}
	return dev, queue, nil
}

// mapped returns n bytes at p (memory mapped by vkMapMemory) as a slice.
func mapped(p unsafe.Pointer, n int) []byte { return unsafe.Slice((*byte)(p), n) }
