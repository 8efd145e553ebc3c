//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import "fmt"

// batch is one command buffer with what its commands hold until its fence signals: descriptor
// pools, staging buffers, buffers freed meanwhile and the host copies of Reads.
type batch struct {
	cmd       uintptr
	fence     uint64
	recording bool // begun, not yet submitted
	inFlight  bool // submitted, fence not yet waited for
	commands  int
	pools     []uint64
	pool      int // index of the pool sets come from
	sets      int // sets taken from pools[pool]
	staging   []*staging
	stagedSum uint64
	release   []*buffer
	after     []func() // run once the fence signalled (Read's copies out of staging)
}

const (
	setsPerPool     = 256
	maxBindings     = 6
	maxCommands     = 1024    // a batch is submitted after this many commands
	stagingChunk    = 4 << 20 // smallest staging buffer
	maxStagedBatch  = 256 << 20
	keepStagingSize = 16 << 20 // staging buffers up to this size are kept for reuse
	pushBytes       = 128
)

// newBatch creates a command buffer and its fence.
func (b *Backend) newBatch() (*batch, error) {
	var ps pins
	defer ps.p.Unpin()
	bt := &batch{}
	ai := &commandBufferAllocateInfo{sType: stCommandBufferAllocate, commandPool: b.cmdPool, commandBufferCount: 1}
	if err := result("vkAllocateCommandBuffers", b.f.allocateCommandBuffers, b.dev, ptr(&ps, ai), ptr(&ps, &bt.cmd)); err != nil {
		return nil, err
	}
	fi := &fenceCreateInfo{sType: stFenceCreateInfo}
	if err := result("vkCreateFence", b.f.createFence, b.dev, ptr(&ps, fi), 0, ptr(&ps, &bt.fence)); err != nil {
		return nil, err
	}
	return bt, nil
}

// rec returns the batch being recorded, beginning it if needed; nil after a failure
// (recorded as the sticky error).
func (b *Backend) rec() *batch {
	bt := b.batches[b.cur]
	if bt.recording {
		return bt
	}
	var ps pins
	defer ps.p.Unpin()
	bi := &commandBufferBeginInfo{sType: stCommandBufferBegin, flags: 1} // ONE_TIME_SUBMIT
	if err := result("vkBeginCommandBuffer", b.f.beginCommandBuffer, bt.cmd, ptr(&ps, bi)); err != nil {
		b.failVK(err)
		return nil
	}
	bt.recording = true
	return bt
}

// barrier makes the writes of earlier commands (shaders, copies) visible to later ones and
// orders later writes after earlier reads.
func (b *Backend) barrier(bt *batch) {
	if bt.commands == 0 {
		return
	}
	var ps pins
	defer ps.p.Unpin()
	mb := &memoryBarrier{sType: stMemoryBarrier, srcAccessMask: accShaderWrite | accTransferWrite,
		dstAccessMask: accShaderRead | accShaderWrite | accTransferRead | accTransferWrite}
	st := uintptr(pipeStageCompute | pipeStageTransfer)
	vkcall(b.f.cmdPipelineBarrier, bt.cmd, st, st, 0, 1, ptr(&ps, mb), 0, 0, 0, 0)
}

// copyBuffer records a copy of size bytes between buffers.
func (b *Backend) copyBuffer(src, dst uint64, srcOff, dstOff, size uint64) {
	bt := b.rec()
	if bt == nil {
		return
	}
	b.barrier(bt)
	var ps pins
	defer ps.p.Unpin()
	r := &bufferCopy{srcOffset: srcOff, dstOffset: dstOff, size: size}
	vkcall(b.f.cmdCopyBuffer, bt.cmd, uintptr(src), uintptr(dst), 1, ptr(&ps, r))
	bt.commands++
}

// stage returns n bytes of staging memory for the batch being recorded (at most
// maxStagedBatch per batch: larger uploads submit in between).
func (b *Backend) stage(n uint64) (*staging, uint64, error) {
	bt := b.batches[b.cur]
	if bt.stagedSum+n > maxStagedBatch && bt.stagedSum > 0 {
		b.submit(false)
		bt = b.batches[b.cur]
	}
	for _, s := range bt.staging {
		if off := (s.used + 15) &^ 15; off+n <= s.size {
			s.used = off + n
			bt.stagedSum += n
			return s, off, nil
		}
	}
	s, err := b.newStaging(max(n, stagingChunk))
	if err != nil {
		return nil, 0, err
	}
	s.used = n
	bt.staging = append(bt.staging, s)
	bt.stagedSum += n
	return s, 0, nil
}

// submit ends and submits the batch being recorded, then waits for the batch submitted
// before it (and with wait for this one too) and recycles what has completed.
func (b *Backend) submit(wait bool) {
	bt := b.batches[b.cur]
	other := b.batches[1-b.cur]
	if bt.recording {
		bt.recording = false
		var ps pins
		err := result("vkEndCommandBuffer", b.f.endCommandBuffer, bt.cmd)
		if err == nil {
			cmd := new(uintptr)
			*cmd = bt.cmd
			si := &submitInfo{sType: stSubmitInfo, commandBufferCount: 1, pCommandBuffers: ptr(&ps, cmd)}
			err = result("vkQueueSubmit", b.f.queueSubmit, b.queue, 1, ptr(&ps, si), uintptr(bt.fence))
		}
		ps.p.Unpin()
		if err != nil {
			b.failVK(err)
			b.waitIdle()
			b.complete(other)
			b.complete(bt)
			return
		}
		bt.inFlight = true
	}
	b.complete(other)
	if wait || !bt.inFlight {
		b.complete(bt)
		return
	}
	b.cur = 1 - b.cur
}

// complete waits for a batch's fence and recycles its resources.
func (b *Backend) complete(bt *batch) {
	if bt.recording { // an unsubmitted batch (after a failure): drop its commands
		vkcall(b.f.endCommandBuffer, bt.cmd)
		bt.recording = false
	}
	if bt.inFlight {
		var ps pins
		fence := new(uint64)
		*fence = bt.fence
		err := result("vkWaitForFences", b.f.waitForFences, b.dev, 1, ptr(&ps, fence), 1, ^uintptr(0))
		if err == nil {
			err = result("vkResetFences", b.f.resetFences, b.dev, 1, ptr(&ps, fence))
		}
		ps.p.Unpin()
		bt.inFlight = false
		if err != nil {
			b.failVK(err)
			b.waitIdle()
		}
		if b.lost == nil {
			for _, f := range bt.after {
				f()
			}
		}
	}
	bt.after = nil
	b.dropStamps(bt)
	vkcall(b.f.resetCommandBuffer, bt.cmd, 0)
	bt.commands = 0
	for _, p := range bt.pools {
		vkcall(b.f.resetDescriptorPool, b.dev, uintptr(p), 0)
	}
	bt.pool, bt.sets = 0, 0
	kept := bt.staging[:0]
	for _, s := range bt.staging {
		if s.size <= keepStagingSize && len(kept) < 4 {
			s.used = 0
			kept = append(kept, s)
		} else {
			b.destroyStaging(s)
		}
	}
	clear(bt.staging[len(kept):])
	bt.staging, bt.stagedSum = kept, 0
	for _, x := range bt.release {
		b.destroy(x)
	}
	bt.release = nil
}

// waitIdle waits until the device has nothing to do (after a failed submission).
func (b *Backend) waitIdle() { vkcall(b.f.deviceWaitIdle, b.dev) }

// descriptorSet returns a new descriptor set of layout from the recording batch's pools.
func (b *Backend) descriptorSet(bt *batch, layout uint64) (uint64, error) {
	var ps pins
	defer ps.p.Unpin()
	if len(bt.pools) == 0 || bt.sets == setsPerPool {
		if bt.sets == setsPerPool {
			bt.pool++
			bt.sets = 0
		}
		if bt.pool == len(bt.pools) {
			sz := &descriptorPoolSize{typ: descStorageBuffer, count: setsPerPool * maxBindings}
			ci := &descriptorPoolCreateInfo{sType: stDescriptorPoolCreateInfo, maxSets: setsPerPool, poolSizeCount: 1, pPoolSizes: ptr(&ps, sz)}
			var pool uint64
			if err := result("vkCreateDescriptorPool", b.f.createDescriptorPool, b.dev, ptr(&ps, ci), 0, ptr(&ps, &pool)); err != nil {
				return 0, err
			}
			bt.pools = append(bt.pools, pool)
		}
	}
	l := new(uint64)
	*l = layout
	ai := &descriptorSetAllocateInfo{sType: stDescriptorSetAllocate, descriptorPool: bt.pools[bt.pool], descriptorSetCount: 1, pSetLayouts: ptr(&ps, l)}
	var set uint64
	if err := result("vkAllocateDescriptorSets", b.f.allocateDescriptorSets, b.dev, ptr(&ps, ai), ptr(&ps, &set)); err != nil {
		return 0, err
	}
	bt.sets++
	return set, nil
}

// binding is a range of a buffer bound to one storage-buffer binding.
type binding struct {
	buf      uint64
	off, rng uint64
}

// dispatch records one kernel run: its storage buffers, push constants and workgroup grid.
func (b *Backend) dispatch(p *pipeline, binds []binding, params []uint32, gx, gy, gz uint32) error {
	if len(binds) != p.nBind || len(params)*4 > pushBytes {
		return fmt.Errorf("vulkan: kernel %s: internal error: %d bindings, %d parameters", p.name, len(binds), len(params))
	}
	bt := b.rec()
	if bt == nil {
		return nil // failure recorded
	}
	set, err := b.descriptorSet(bt, p.dsl)
	if err != nil {
		return err
	}
	var ps pins
	defer ps.p.Unpin()
	infos := make([]descriptorBufferInfo, len(binds))
	writes := make([]writeDescriptorSet, len(binds))
	for i, bd := range binds {
		infos[i] = descriptorBufferInfo{buffer: bd.buf, offset: bd.off, rng: bd.rng}
		writes[i] = writeDescriptorSet{sType: stWriteDescriptorSet, dstSet: set, dstBinding: uint32(i), descriptorCount: 1,
			descriptorType: descStorageBuffer, pBufferInfo: ptr(&ps, &infos[i])}
	}
	vkcall(b.f.updateDescriptorSets, b.dev, uintptr(len(writes)), ptr(&ps, &writes[0]), 0, 0)
	b.barrier(bt)
	vkcall(b.f.cmdBindPipeline, bt.cmd, bindCompute, uintptr(p.pipe))
	setp := new(uint64)
	*setp = set
	vkcall(b.f.cmdBindDescriptorSets, bt.cmd, bindCompute, uintptr(p.layout), 0, 1, ptr(&ps, setp), 0, 0)
	if len(params) > 0 {
		pc := make([]uint32, len(params))
		copy(pc, params)
		vkcall(b.f.cmdPushConstants, bt.cmd, uintptr(p.layout), stageCompute, 0, uintptr(4*len(pc)), ptr(&ps, &pc[0]))
	}
	b.stampBefore(bt, b.profOp)
	vkcall(b.f.cmdDispatch, bt.cmd, uintptr(gx), uintptr(gy), uintptr(gz))
	b.stampAfter(bt)
	bt.commands++
	if bt.commands >= maxCommands {
		b.submit(false)
	}
	return nil
}
