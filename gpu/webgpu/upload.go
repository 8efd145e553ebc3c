//go:build cgo

package webgpu

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"

	"kleinbild/internal/fanout"
)

// Weights reach the device through the staging ring (upload_ring.go). Where buffers cannot be
// mapped again (no C map entry point), through new mapped staging buffers: each piece of
// stagingPiece bytes is copied (on several goroutines) into a buffer mapped at creation and
// unmapped; the
// copies into the weights' buffers are submitted on their own every stagingFlush bytes, and
// before any other work (flushLocked). Nothing waits for a tensor: a staging submission
// waits only while more than stagingInFlight bytes of earlier ones are still copying.
const (
	stagingPiece    = 32 << 20
	stagingFlush    = 256 << 20
	stagingInFlight = 2 * stagingFlush
	// copyPart is the least a goroutine copies of a piece.
	copyPart = 2 << 20
)

// uploadStats count the weight bytes staged since the backend opened and the host time it
// took (copies, submissions and the waits they imply), and hold the staged copies.
type uploadStats struct {
	bytes  int64
	dur    time.Duration
	read   time.Duration // of dur: filling staging buffers (reading the weight files)
	wait   time.Duration // of dur: waiting for staging buffers (the copies to the device)
	copies []stagedCopy  // recorded, not yet submitted
	staged uint64        // bytes of copies
	flight []stagedBatch // submitted, maybe still running
}

type stagedCopy struct {
	src, dst  *wgpu.Buffer
	off, size uint64
}

type stagedBatch struct {
	done  *marker
	bytes uint64
}

// Uploads reports the weight bytes copied to the device since it opened and the time spent
// on it (their rate is the host-to-device rate weights load at).
func (b *Backend) Uploads() (bytes int64, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.up.bytes, b.up.dur
}

// UploadTimes splits Uploads' time: read is the time spent filling staging buffers from the
// weights (reading the files: page faults of a mapped file not in the page cache), wait the
// time spent waiting for the device to finish earlier copies (the bus); the rest is
// submitting.
func (b *Backend) UploadTimes() (read, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.up.read, b.up.wait
}

// stage copies data into buf from byte offset off through mapped staging buffers (see
// above); a piece's size is rounded up to 4 bytes (buf's size is too, createBuffer). buf
// must be new: the copies may run after work queued before them.
func (b *Backend) stage(buf *wgpu.Buffer, off uint64, data []byte) {
	t := time.Now()
	defer func() { b.up.dur += time.Since(t) }()
	if mapWriteAvailable() {
		b.stageRing(buf, off, data)
		return
	}
	for len(data) > 0 && b.usable() {
		n := min(len(data), stagingPiece)
		size := uint64(n+3) &^ 3
		st, err := b.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: "staging", Size: size,
			Usage: wgpu.BufferUsageMapWrite | wgpu.BufferUsageCopySrc, MappedAtCreation: true})
		if err != nil {
			b.fail(fmt.Errorf("webgpu: staging buffer of %s: %w", gb(int64(size)), err))
			return
		}
		tr := time.Now()
		parallelCopy(st.GetMappedRange(0, uint(size)), data[:n])
		b.up.read += time.Since(tr)
		if err := st.Unmap(); err != nil {
			st.Release()
			b.fail(fmt.Errorf("webgpu: staging buffer: %w", err))
			return
		}
		b.up.copies = append(b.up.copies, stagedCopy{src: st, dst: buf, off: off, size: size})
		b.up.bytes += int64(n)
		b.up.staged += size
		if b.up.staged >= stagingFlush {
			b.submitStaged()
		}
		off += size
		data = data[n:]
	}
}

// submitStaged submits the staged copies, then waits while more than stagingInFlight bytes
// of staging submissions are still running (polling without blocking, as pollUntil).
func (b *Backend) submitStaged() {
	if len(b.up.copies) == 0 {
		return
	}
	copies := b.up.copies
	b.up.copies, b.up.staged = nil, 0
	defer func() {
		for _, c := range copies {
			c.src.Release() // wgpu keeps it until the copy is done
		}
	}()
	enc, err := b.dev.CreateCommandEncoder(nil)
	if err != nil {
		b.fail(fmt.Errorf("webgpu: weight upload: %w", err))
		return
	}
	defer enc.Release()
	var bytes uint64
	for _, c := range copies {
		if err := enc.CopyBufferToBuffer(c.src, 0, c.dst, c.off, c.size); err != nil {
			b.fail(fmt.Errorf("webgpu: weight upload: %w", err))
		}
		bytes += c.size
	}
	cmd, err := enc.Finish(nil)
	if err != nil {
		b.fail(fmt.Errorf("webgpu: weight upload: %w", err))
		return
	}
	b.queue.Submit(cmd)
	cmd.Release()
	m := newMarker(b.queue)
	if m == nil { // no completion callbacks here: wait for this submission now
		b.dev.Poll(true, nil)
		return
	}
	b.up.flight = append(b.up.flight, stagedBatch{done: m, bytes: bytes})
	var running uint64
	for _, f := range b.up.flight {
		running += f.bytes
	}
	for len(b.up.flight) > 0 && (running > stagingInFlight || b.up.flight[0].done.done()) {
		f := b.up.flight[0]
		b.waitMarker(f.done)
		running -= f.bytes
		b.up.flight = b.up.flight[1:]
	}
}

// waitStaged waits for every staging submission (Close: their markers are freed).
func (b *Backend) waitStaged() {
	for _, f := range b.up.flight {
		b.waitMarker(f.done)
	}
	b.up.flight = nil
}

// parallelCopy copies src into dst on up to GOMAXPROCS goroutines (at most 8), each at
// least copyPart bytes: the source is usually a mapped file, whose page faults a single
// copy takes one at a time. A fault on any of them (the file shrank) reaches the caller
// (fanout.Ranges), which the engine guards.
func parallelCopy(dst, src []byte) {
	parts := min(runtime.GOMAXPROCS(0), 8, max(len(src)/copyPart, 1))
	fanout.Ranges(len(src), parts, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// littleEndian is true on hosts whose memory order is the device's (every GPU host
// Kleinbild builds for): weights are uploaded from their own bytes.
var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// viewBytes returns the bytes of v in memory, little-endian hosts only.
func viewBytes[T uint16 | float32](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}
