//go:build cgo

package webgpu

import (
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// The staging ring: weights go up through ringSlots staging buffers that are reused, not
// created per piece (wgpu zero-fills every new mapping, on one thread: an H200 loaded at 1.2–1.7
// GB/s with a new 32 MiB buffer per piece). A slot is filled (the file read into it, on
// several goroutines), unmapped, its copy submitted at once, and mapped again for writing
// right away: the mapping completes when the copy has, so the next slots fill while earlier
// copies run. Slots grow to the largest piece seen, up to ringSlotBytes, and are released at
// the next wait for the device (Sync, Read) or Close, so the ring holds host-visible memory
// only while weights are loading.
const (
	ringSlots     = 4
	ringSlotBytes = 64 << 20
)

type ringSlot struct {
	buf  *wgpu.Buffer
	size uint64
	// remap reports the mapping started after the slot's copy (nil: mapped, ready).
	remap func() (wgpu.BufferMapAsyncStatus, bool)
}

type stagingRing struct {
	slots []*ringSlot
	next  int
}

// stageRing is stage through the ring (see above).
func (b *Backend) stageRing(buf *wgpu.Buffer, off uint64, data []byte) {
	for len(data) > 0 && b.usable() {
		n := min(len(data), ringSlotBytes)
		size := uint64(n+3) &^ 3
		s := b.ringSlot(size)
		if s == nil {
			return
		}
		dst := s.buf.GetMappedRange(0, uint(size))
		t := time.Now()
		parallelCopy(dst[:n], data[:n])
		b.up.read += time.Since(t)
		clear(dst[n:size]) // a reused slot holds an earlier piece
		if err := s.buf.Unmap(); err != nil {
			b.fail(fmt.Errorf("webgpu: staging buffer: %w", err))
			return
		}
		b.submitRingCopy(s, buf, off, size)
		b.up.bytes += int64(n)
		off += size
		data = data[n:]
	}
}

// ringSlot returns the next slot, mapped and at least size bytes: a new one while the ring
// has fewer than ringSlots, else the oldest once its copy is done and it is mapped again (or
// a larger replacement). nil: an error was recorded.
func (b *Backend) ringSlot(size uint64) *ringSlot {
	r := &b.ring
	var s *ringSlot
	if len(r.slots) < ringSlots {
		s = &ringSlot{}
		r.slots = append(r.slots, s)
	} else {
		s = r.slots[r.next]
		r.next = (r.next + 1) % ringSlots
		if !b.ringMapped(s) {
			return nil
		}
	}
	if s.buf != nil && s.size >= size {
		return s
	}
	if s.buf != nil {
		s.buf.Release()
		s.buf = nil
	}
	grow := min(max(size, 4<<20), ringSlotBytes)
	grow = max(grow, size)
	buf, err := b.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: "staging ring", Size: grow,
		Usage: wgpu.BufferUsageMapWrite | wgpu.BufferUsageCopySrc, MappedAtCreation: true})
	if err != nil {
		b.fail(fmt.Errorf("webgpu: staging buffer of %s: %w", gb(int64(grow)), err))
		return nil
	}
	s.buf, s.size = buf, grow
	return s
}

// ringMapped waits until slot s is mapped again after its copy (time counted as waiting for
// the device); false: the mapping failed (recorded).
func (b *Backend) ringMapped(s *ringSlot) bool {
	if s.remap == nil {
		return true
	}
	t := time.Now()
	var st wgpu.BufferMapAsyncStatus
	ok := false
	b.pollUntil(func() bool { st, ok = s.remap(); return ok })
	b.up.wait += time.Since(t)
	s.remap = nil
	if !ok || st != wgpu.BufferMapAsyncStatusSuccess {
		if s.buf != nil {
			s.buf.Release()
			s.buf = nil
		}
		b.fail(fmt.Errorf("webgpu: staging buffer: mapping again failed (status %v)", st))
		return false
	}
	return true
}

// submitRingCopy submits the copy of size bytes from slot s to dst at off, then maps s again.
func (b *Backend) submitRingCopy(s *ringSlot, dst *wgpu.Buffer, off, size uint64) {
	enc, err := b.dev.CreateCommandEncoder(nil)
	if err != nil {
		b.fail(fmt.Errorf("webgpu: weight upload: %w", err))
		return
	}
	defer enc.Release()
	if err := enc.CopyBufferToBuffer(s.buf, 0, dst, off, size); err != nil {
		b.fail(fmt.Errorf("webgpu: weight upload: %w", err))
	}
	cmd, err := enc.Finish(nil)
	if err != nil {
		b.fail(fmt.Errorf("webgpu: weight upload: %w", err))
		return
	}
	b.queue.Submit(cmd)
	cmd.Release()
	s.remap = mapWrite(s.buf, s.size)
}

// releaseRing waits for the slots' mappings and releases them (the device is idle: Sync,
// Read, Close).
func (b *Backend) releaseRing() {
	for _, s := range b.ring.slots {
		if s.remap != nil {
			b.pollUntil(func() bool { _, ok := s.remap(); return ok })
			s.remap = nil
		}
		if s.buf != nil {
			s.buf.Release()
		}
	}
	b.ring = stagingRing{}
}

// dropRing releases the slots without waiting (a lost device: a pending mapping's status
// stays allocated, since its callback may still write it).
func (b *Backend) dropRing() {
	for _, s := range b.ring.slots {
		if s.buf != nil {
			s.buf.Release()
		}
	}
	b.ring = stagingRing{}
}
