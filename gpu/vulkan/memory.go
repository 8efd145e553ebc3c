//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"unsafe"
)

// buffer is the gpu.Buffer of this backend: one VkBuffer on its own device memory.
type buffer struct {
	b      *Backend
	buf    uint64
	mem    uint64
	size   uint64 // bytes allocated for the buffer (a multiple of 4)
	bytes  int64  // bytes asked for
	weight bool   // read-only: ops refuse to write it
	freed  bool
}

// Bytes is the buffer's size.
func (x *buffer) Bytes() int64 { return x.bytes }

// staging is a host-visible buffer, mapped for its whole life.
type staging struct {
	buf, mem   uint64
	size, used uint64
	data       []byte
}

func gb(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// rawBuffer creates a buffer of size bytes with usage on memory of the wanted properties
// (preferring prefer as well).
func (b *Backend) rawBuffer(size uint64, usage, want, prefer uint32) (buf, mem uint64, err error) {
	var ps pins
	defer ps.p.Unpin()
	f := b.f
	ci := &bufferCreateInfo{sType: stBufferCreateInfo, size: size, usage: usage}
	if err := result("vkCreateBuffer", f.createBuffer, b.dev, ptr(&ps, ci), 0, ptr(&ps, &buf)); err != nil {
		return 0, 0, err
	}
	req := new(memoryRequirements)
	vkcall(f.getBufferMemoryRequirements, b.dev, uintptr(buf), ptr(&ps, req))
	mt := b.pd.memoryType(req.memoryTypeBits, want, prefer)
	if mt < 0 {
		vkcall(f.destroyBuffer, b.dev, uintptr(buf), 0)
		return 0, 0, fmt.Errorf("vulkan: no memory type with properties %#x for a buffer", want)
	}
	ai := &memoryAllocateInfo{sType: stMemoryAllocateInfo, allocationSize: req.size, memoryTypeIndex: uint32(mt)}
	if err := result("vkAllocateMemory", f.allocateMemory, b.dev, ptr(&ps, ai), 0, ptr(&ps, &mem)); err != nil {
		vkcall(f.destroyBuffer, b.dev, uintptr(buf), 0)
		return 0, 0, err
	}
	if err := result("vkBindBufferMemory", f.bindBufferMemory, b.dev, uintptr(buf), uintptr(mem), 0); err != nil {
		vkcall(f.destroyBuffer, b.dev, uintptr(buf), 0)
		vkcall(f.freeMemory, b.dev, uintptr(mem), 0)
		return 0, 0, err
	}
	return buf, mem, nil
}

// newBuffer allocates a device-local storage buffer of n bytes.
func (b *Backend) newBuffer(n int64) (*buffer, error) {
	size := uint64(max((n+3)&^3, 4))
	if size > b.pd.lim.maxAllocBytes {
		return nil, fmt.Errorf("vulkan: cannot allocate %s on %s: larger than one allocation may be (%s)", gb(int64(size)), b.pd.info.Name, gb(int64(b.pd.lim.maxAllocBytes)))
	}
	buf, mem, err := b.rawBuffer(size, bufStorage|bufTransferSrc|bufTransferDst, memDeviceLocal, 0)
	if err != nil {
		return nil, fmt.Errorf("vulkan: allocating %s on %s: %w", gb(int64(size)), b.pd.info.Name, err)
	}
	b.resident += int64(size)
	b.peak = max(b.peak, b.resident)
	x := &buffer{b: b, buf: buf, mem: mem, size: size, bytes: n}
	b.live[x] = struct{}{}
	return x, nil
}

// destroy releases a buffer's Vulkan objects (no queued work may use it).
func (b *Backend) destroy(x *buffer) {
	delete(b.live, x)
	vkcall(b.f.destroyBuffer, b.dev, uintptr(x.buf), 0)
	vkcall(b.f.freeMemory, b.dev, uintptr(x.mem), 0)
}

// newStaging creates a mapped host-visible buffer of size bytes.
func (b *Backend) newStaging(size uint64) (*staging, error) {
	buf, mem, err := b.rawBuffer(size, bufTransferSrc|bufTransferDst, memHostVisible|memHostCoherent, memHostCached)
	if err != nil {
		return nil, fmt.Errorf("vulkan: staging buffer of %s: %w", gb(int64(size)), err)
	}
	var ps pins
	defer ps.p.Unpin()
	var p unsafe.Pointer
	if err := result("vkMapMemory", b.f.mapMemory, b.dev, uintptr(mem), 0, uintptr(size), 0, ptr(&ps, &p)); err != nil {
		vkcall(b.f.destroyBuffer, b.dev, uintptr(buf), 0)
		vkcall(b.f.freeMemory, b.dev, uintptr(mem), 0)
		return nil, err
	}
	return &staging{buf: buf, mem: mem, size: size, data: mapped(p, int(size))}, nil
}

func (b *Backend) destroyStaging(s *staging) {
	vkcall(b.f.unmapMemory, b.dev, uintptr(s.mem))
	vkcall(b.f.destroyBuffer, b.dev, uintptr(s.buf), 0)
	vkcall(b.f.freeMemory, b.dev, uintptr(s.mem), 0)
}
