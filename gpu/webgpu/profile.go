//go:build cgo

package webgpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/cogentcore/webgpu/wgpu"

	"kleinbild/gpu"
)

// Profiling: with StartProfile, every dispatch runs in its own compute pass between two
// CommandEncoder.WriteTimestamp queries (the timestamp-query feature alone; timestamps inside
// passes would need a native feature), and each submission is waited for and its timestamps
// read back, summed per op (the gpu.Backend method that queued the dispatch: "Linear",
// "Attention", ...). It slows the work down (a pass per dispatch, no overlap of CPU and GPU),
// but the GPU time per dispatch stays the kernel's. Timestamps count in nanoseconds as
// WebGPU defines them; wgpu-native passes the driver's ticks on, which are nanoseconds on
// NVIDIA and lavapipe (other drivers may differ; shares are unaffected).

// OpTime is the GPU time of one op's dispatches over a profiled stretch.
type OpTime = gpu.OpTime

// profQueries is the timestamps of one submission while profiling (WebGPU's largest query
// set): two per dispatch.
const (
	profQueries       = 4096
	profMaxDispatches = profQueries / 2
)

type profiler struct {
	qs         *wgpu.QuerySet
	resolveBuf *wgpu.Buffer // QueryResolve | CopySrc
	readBuf    *wgpu.Buffer // MapRead | CopyDst
	ops        map[string]*OpTime
}

// StartProfile makes the backend time every dispatch on the GPU (see above) until
// StopProfile; TakeProfile reads the sums. It fails on a device without timestamp queries.
func (b *Backend) StartProfile() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.prof != nil {
		return nil
	}
	if !b.timestamps {
		return fmt.Errorf("webgpu: %s has no timestamp queries: it cannot be profiled", b.info.Name)
	}
	b.flushLocked(true)
	qs, err := b.dev.CreateQuerySet(&wgpu.QuerySetDescriptor{Label: "kleinbild-profile", Type: wgpu.QueryTypeTimestamp, Count: profQueries})
	if err != nil {
		return fmt.Errorf("webgpu: profiling: %w", err)
	}
	p := &profiler{qs: qs, ops: map[string]*OpTime{}}
	size := uint64(8 * profQueries)
	if p.resolveBuf, err = b.dev.CreateBuffer(&wgpu.BufferDescriptor{Size: size, Usage: wgpu.BufferUsageQueryResolve | wgpu.BufferUsageCopySrc}); err == nil {
		p.readBuf, err = b.dev.CreateBuffer(&wgpu.BufferDescriptor{Size: size, Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst})
	}
	if err != nil {
		p.release()
		return fmt.Errorf("webgpu: profiling: %w", err)
	}
	b.prof = p
	return nil
}

// TakeProfile finishes the queued work and returns the GPU time per op since StartProfile or
// the last TakeProfile, longest first, and starts over.
func (b *Backend) TakeProfile() ([]OpTime, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.prof == nil {
		return nil, errors.New("webgpu: TakeProfile without StartProfile")
	}
	b.flushLocked(true)
	out := make([]OpTime, 0, len(b.prof.ops))
	for _, o := range b.prof.ops {
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Seconds != out[j].Seconds {
			return out[i].Seconds > out[j].Seconds
		}
		return out[i].Op < out[j].Op
	})
	b.prof.ops = map[string]*OpTime{}
	return out, b.takeErr()
}

// StopProfile ends profiling (the sums not taken are dropped).
func (b *Backend) StopProfile() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.prof == nil {
		return
	}
	b.flushLocked(true)
	b.prof.release()
	b.prof = nil
}

func (p *profiler) release() {
	for _, buf := range []*wgpu.Buffer{p.resolveBuf, p.readBuf} {
		if buf != nil {
			buf.Release()
		}
	}
	if p.qs != nil {
		p.qs.Release()
	}
}

// stamp writes timestamp i.
func (p *profiler) stamp(b *Backend, enc *wgpu.CommandEncoder, i int) {
	if err := enc.WriteTimestamp(p.qs, uint32(i)); err != nil {
		b.fail(fmt.Errorf("webgpu: profiling: %w", err))
	}
}

// resolve copies the timestamps of n dispatches to the read buffer.
func (p *profiler) resolve(b *Backend, enc *wgpu.CommandEncoder, n int) {
	if err := enc.ResolveQuerySet(p.qs, 0, uint32(2*n), p.resolveBuf, 0); err != nil {
		b.fail(fmt.Errorf("webgpu: profiling: %w", err))
		return
	}
	if err := enc.CopyBufferToBuffer(p.resolveBuf, 0, p.readBuf, 0, uint64(16*n)); err != nil {
		b.fail(fmt.Errorf("webgpu: profiling: %w", err))
	}
}

// collect reads the timestamps of the finished submission whose dispatches ran ops.
func (p *profiler) collect(b *Backend, ops []string) {
	size := uint64(16 * len(ops))
	poll, err := mapRead(p.readBuf, size)
	if err != nil {
		b.fail(fmt.Errorf("webgpu: profiling: %w", err))
		return
	}
	var status wgpu.BufferMapAsyncStatus
	ok := false
	b.pollUntil(func() bool { status, ok = poll(); return ok })
	if !ok || status != wgpu.BufferMapAsyncStatusSuccess {
		b.fail(fmt.Errorf("webgpu: profiling: mapping the timestamps failed (status %v)", status))
		return
	}
	raw := p.readBuf.GetMappedRange(0, uint(size))
	for i, op := range ops {
		t0 := binary.LittleEndian.Uint64(raw[16*i:])
		t1 := binary.LittleEndian.Uint64(raw[16*i+8:])
		o := p.ops[op]
		if o == nil {
			o = &OpTime{Op: op}
			p.ops[op] = o
		}
		o.Dispatches++
		if t1 > t0 {
			o.Seconds += float64(t1-t0) * 1e-9
		}
	}
	p.readBuf.Unmap()
}
