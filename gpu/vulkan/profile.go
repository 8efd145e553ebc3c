//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"kleinbild/gpu"
)

//lint:file-ignore U1000 queryPoolCreateInfo mirrors Vulkan's C layout field for field: a field Go never names still holds its place in memory

// Profiling (kleinbild bench --profile): with StartProfile every dispatch is bracketed by two
// timestamps (vkCmdWriteTimestamp at the bottom of the pipe, after the barrier that orders it
// behind the previous dispatch, and after it), each batch in a query pool of its own; when a
// batch's fence has signalled its timestamps are read and summed per op (the gpu.Backend
// method that queued the dispatch: "Linear", "Attention", ...), in seconds by the device's
// timestampPeriod. Dispatches already run one after the other (every one waits for the
// writes before it), so profiling only adds the timestamps and the reads.

// profQueries is the size of each batch's query pool: two timestamps per dispatch, and a
// batch holds at most maxCommands commands.
const profQueries = 2 * maxCommands

// Query pool constants (vulkan_core.h).
const (
	stQueryPoolCreateInfo = 11
	queryTimestamp        = 2
	queryResult64         = 0x1
	queryResultWait       = 0x2
	pipeStageBottom       = 0x2000
)

type queryPoolCreateInfo struct {
	sType              uint32
	pNext              uintptr
	flags              uint32
	queryType          uint32
	queryCount         uint32
	pipelineStatistics uint32
}

// profiler holds the query pools of the two batches and the sums per op.
type profiler struct {
	pools  map[*batch]uint64
	timed  map[*batch][]string // the op of each timed dispatch of a batch being recorded or in flight
	ops    map[string]*gpu.OpTime
	period float64 // seconds per tick
	mask   uint64  // the timestamps' valid bits
}

// StartProfile makes the backend time every dispatch on the device until StopProfile;
// TakeProfile reads the sums. It fails on a device without timestamps on its compute queue.
func (b *Backend) StartProfile() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errors.New("vulkan: backend is closed")
	}
	if b.prof != nil {
		return nil
	}
	bits := timestampBits(b.f, b.pd.handle)
	if bits == 0 || b.pd.lim.timestampPeriod <= 0 {
		return fmt.Errorf("vulkan: %s has no timestamp queries on its compute queue: it cannot be profiled", b.pd.info.Name)
	}
	b.submit(true)
	p := &profiler{pools: map[*batch]uint64{}, timed: map[*batch][]string{}, ops: map[string]*gpu.OpTime{},
		period: float64(b.pd.lim.timestampPeriod) * 1e-9, mask: ^uint64(0)}
	if bits < 64 {
		p.mask = 1<<bits - 1
	}
	var ps pins
	defer ps.p.Unpin()
	for _, bt := range b.batches {
		ci := &queryPoolCreateInfo{sType: stQueryPoolCreateInfo, queryType: queryTimestamp, queryCount: profQueries}
		var pool uint64
		if err := result("vkCreateQueryPool", b.f.ext.createQueryPool, b.dev, ptr(&ps, ci), 0, ptr(&ps, &pool)); err != nil {
			b.releaseProfile(p)
			return fmt.Errorf("vulkan: profiling: %w", err)
		}
		p.pools[bt] = pool
	}
	b.prof = p
	return nil
}

// timestampBits is the timestampValidBits of device h's compute queue family (0: none).
func timestampBits(f *vk, h uintptr) uint32 {
	fam := computeFamily(f, h)
	if fam < 0 {
		return 0
	}
	var ps pins
	defer ps.p.Unpin()
	var n uint32
	vkcall(f.getPhysicalDeviceQueueFamilyProperties, h, ptr(&ps, &n), 0)
	fams := make([]queueFamilyProperties, n)
	vkcall(f.getPhysicalDeviceQueueFamilyProperties, h, ptr(&ps, &n), ptr(&ps, &fams[0]))
	if fam >= int(n) {
		return 0
	}
	return fams[fam].timestampValidBits
}

// TakeProfile finishes the queued work and returns the device time per op since StartProfile
// or the last TakeProfile, longest first, and starts over.
func (b *Backend) TakeProfile() ([]gpu.OpTime, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.prof == nil {
		return nil, errors.New("vulkan: TakeProfile without StartProfile")
	}
	b.submit(true)
	out := make([]gpu.OpTime, 0, len(b.prof.ops))
	for _, o := range b.prof.ops {
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Seconds != out[j].Seconds {
			return out[i].Seconds > out[j].Seconds
		}
		return out[i].Op < out[j].Op
	})
	b.prof.ops = map[string]*gpu.OpTime{}
	return out, b.takeErr()
}

// StopProfile ends profiling (the sums not taken are dropped).
func (b *Backend) StopProfile() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.prof == nil || b.closed {
		return
	}
	b.submit(true)
	b.releaseProfile(b.prof)
	b.prof = nil
}

// releaseProfile destroys p's query pools (no batch using them in flight).
func (b *Backend) releaseProfile(p *profiler) {
	for _, pool := range p.pools {
		vkcall(b.f.ext.destroyQueryPool, b.dev, uintptr(pool), 0)
	}
	p.pools = nil
}

// stampBefore records the timestamp before a dispatch of op into batch bt (after its
// barrier); the first of a batch resets the batch's pool and arranges for the timestamps to
// be read once the batch's fence has signalled.
func (b *Backend) stampBefore(bt *batch, op string) {
	p := b.prof
	if p == nil {
		return
	}
	pool := p.pools[bt]
	n := len(p.timed[bt])
	if n == 0 {
		vkcall(b.f.ext.cmdResetQueryPool, bt.cmd, uintptr(pool), 0, profQueries)
		bt.after = append(bt.after, func() { b.collect(p, bt) })
	}
	vkcall(b.f.ext.cmdWriteTimestamp, bt.cmd, pipeStageBottom, uintptr(pool), uintptr(2*n))
	p.timed[bt] = append(p.timed[bt], op)
}

// stampAfter records the timestamp after the dispatch stampBefore began.
func (b *Backend) stampAfter(bt *batch) {
	p := b.prof
	if p == nil {
		return
	}
	vkcall(b.f.ext.cmdWriteTimestamp, bt.cmd, pipeStageBottom, uintptr(p.pools[bt]), uintptr(2*len(p.timed[bt])-1))
}

// dropStamps forgets the timestamps of batch bt once it completed (collect read them, or the
// batch was dropped after a failure), so that its next use resets its pool.
func (b *Backend) dropStamps(bt *batch) {
	if b.prof != nil {
		delete(b.prof.timed, bt)
	}
}

// collect adds the timestamps of batch bt, which has completed, to p's sums.
func (b *Backend) collect(p *profiler, bt *batch) {
	ops := p.timed[bt]
	delete(p.timed, bt)
	if len(ops) == 0 || p.pools == nil {
		return
	}
	raw := make([]byte, 16*len(ops))
	var ps pins
	defer ps.p.Unpin()
	if err := result("vkGetQueryPoolResults", b.f.ext.getQueryPoolResults, b.dev, uintptr(p.pools[bt]), 0, uintptr(2*len(ops)),
		uintptr(len(raw)), ptr(&ps, &raw[0]), 8, queryResult64|queryResultWait); err != nil {
		b.failVK(fmt.Errorf("vulkan: profiling: %w", err))
		return
	}
	for i, op := range ops {
		t0 := binary.LittleEndian.Uint64(raw[16*i:]) & p.mask
		t1 := binary.LittleEndian.Uint64(raw[16*i+8:]) & p.mask
		o := p.ops[op]
		if o == nil {
			o = &gpu.OpTime{Op: op}
			p.ops[op] = o
		}
		o.Dispatches++
		if t1 > t0 {
			o.Seconds += float64(t1-t0) * p.period
		}
	}
}
