//go:build cgo

package webgpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"kleinbild/gpu"
)

// kernel is one WGSL compute shader: bindings 1..nOut are read_write outputs, the next nIn
// read-only inputs, binding 0 the uniform parameters. Entry point "main". A generated kernel
// has gen instead of src, called once when its pipeline is first compiled.
type kernel struct {
	name      string
	src       string
	gen       func() string
	nOut, nIn int
}

// pipeline is a compiled kernel.
type pipeline struct {
	bgl *wgpu.BindGroupLayout
	pl  *wgpu.PipelineLayout
	cp  *wgpu.ComputePipeline
	mod *wgpu.ShaderModule
}

func (p *pipeline) release() {
	p.cp.Release()
	p.pl.Release()
	p.bgl.Release()
	p.mod.Release()
}

// pipeline returns the compiled kernel k (variant key), compiling it on first use. Bit i
// of rw marks input i (binding nOut+1+i) as read_write storage instead of read-only: WebGPU
// rejects a buffer bound both read-only and writable in one dispatch (one usage scope),
// so an input that lives in the same buffer as an output (an in-place op, or views of one
// activation buffer) is declared read_write; every other input stays read-only.
func (b *Backend) pipeline(k *kernel, key string, rw uint32) (*pipeline, error) {
	full := k.name + "/" + key
	if rw != 0 {
		full += fmt.Sprintf("/rw%x", rw) // as call.pipelineKey
	}
	if p, ok := b.pipes[full]; ok {
		return p, nil
	}
	src := k.src
	if k.gen != nil {
		src = k.gen()
	}
	src = readWrite(src, k.nOut, rw)
	mod, err := b.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: full, WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src}})
	if err != nil {
		return nil, fmt.Errorf("webgpu: compiling kernel %s on %s: %w", full, b.info.Name, err)
	}
	entries := []wgpu.BindGroupLayoutEntry{{Binding: 0, Visibility: wgpu.ShaderStageCompute,
		Buffer: wgpu.BufferBindingLayout{Type: wgpu.BufferBindingTypeUniform}}}
	for i := range k.nOut + k.nIn {
		typ := wgpu.BufferBindingTypeStorage
		if i >= k.nOut && rw&(1<<(i-k.nOut)) == 0 {
			typ = wgpu.BufferBindingTypeReadOnlyStorage
		}
		entries = append(entries, wgpu.BindGroupLayoutEntry{Binding: uint32(i + 1), Visibility: wgpu.ShaderStageCompute,
			Buffer: wgpu.BufferBindingLayout{Type: typ}})
	}
	bgl, err := b.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: full, Entries: entries})
	if err != nil {
		mod.Release()
		return nil, fmt.Errorf("webgpu: kernel %s: %w", full, err)
	}
	pl, err := b.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: full, BindGroupLayouts: []*wgpu.BindGroupLayout{bgl}})
	if err != nil {
		bgl.Release()
		mod.Release()
		return nil, fmt.Errorf("webgpu: kernel %s: %w", full, err)
	}
	cp, err := b.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{Label: full, Layout: pl,
		Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: "main"}})
	if err != nil {
		pl.Release()
		bgl.Release()
		mod.Release()
		return nil, fmt.Errorf("webgpu: compiling kernel %s on %s: %w", full, b.info.Name, err)
	}
	p := &pipeline{bgl: bgl, pl: pl, cp: cp, mod: mod}
	b.pipes[full] = p
	return p, nil
}

// readWrite declares the inputs marked in rw (bit i: binding nOut+1+i) read_write.
func readWrite(src string, nOut int, rw uint32) string {
	for i := 0; rw>>i != 0; i++ {
		if rw&(1<<i) != 0 {
			b := fmt.Sprintf("@binding(%d) var<storage, read>", nOut+1+i)
			src = strings.ReplaceAll(src, b, fmt.Sprintf("@binding(%d) var<storage, read_write>", nOut+1+i))
		}
	}
	return src
}

// binding is a byte range of a buffer bound to one kernel argument.
type binding struct {
	buf       *wgpu.Buffer
	off, size uint64
}

// dispatch is one queued kernel run, or (copySrc set) one buffer-to-buffer copy.
type dispatch struct {
	pipe       *pipeline
	params     [paramSlot / 4]uint32
	binds      []binding
	gx, gy, gz uint32
	copySrc    *wgpu.Buffer
	copyDst    *wgpu.Buffer
	copySrcOff uint64
	copyDstOff uint64
	copySize   uint64
	op         string // the gpu.Backend method that queued it (profiling)
}

// maxPending bounds the dispatches queued between Flushes: more are submitted on their own.
const maxPending = 4096

// call collects the bindings of one dispatch.
type call struct {
	b     *Backend
	op    string
	binds []binding
	nOut  int
	err   error
}

func (b *Backend) newCall(op string) *call { return &call{b: b, op: op} }

// out binds elements [lo, hi) of t as the next output and returns the index, within the
// binding, of t's element 0 (wrapping: it may be "negative").
func (c *call) out(t gpu.Tensor, lo, hi int) uint32 {
	if len(c.binds) != c.nOut && c.err == nil {
		c.err = fmt.Errorf("webgpu: %s: internal error: output bound after inputs", c.op)
	}
	c.nOut++
	if x, ok := t.Buffer().(*buffer); ok && x.weight && c.err == nil {
		c.err = fmt.Errorf("webgpu: %s: output %v is a read-only weight", c.op, t)
	}
	return c.bind(t, lo, hi)
}

// in binds elements [lo, hi) of t as the next input; the zero Tensor binds a placeholder.
func (c *call) in(t gpu.Tensor, lo, hi int) uint32 {
	if t.IsZero() {
		c.binds = append(c.binds, c.b.dummy())
		return 0
	}
	return c.bind(t, lo, hi)
}

func (c *call) bind(t gpu.Tensor, lo, hi int) uint32 {
	b := c.b
	x, err := b.own(c.op, t)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		c.binds = append(c.binds, b.dummy())
		return 0
	}
	es := t.DType().Size()
	n := max(hi-lo, 1)
	buf, eoff, err := x.locate(t.Offset()+lo, n)
	if err != nil {
		if c.err == nil {
			c.err = fmt.Errorf("webgpu: %s: %w", c.op, err)
		}
		c.binds = append(c.binds, b.dummy())
		return 0
	}
	size := buf.GetSize()
	maxBind := b.lim.MaxStorageBufferBindingSize
	if size <= maxBind {
		c.binds = append(c.binds, binding{buf: buf, off: 0, size: size})
		return uint32(eoff - lo)
	}
	align := uint64(max(b.lim.MinStorageBufferOffsetAlignment, 4))
	start := uint64(eoff*es) / align * align
	end := min((uint64((eoff+n)*es)+3)&^3, size)
	if end-start > maxBind {
		if c.err == nil {
			c.err = fmt.Errorf("webgpu: %s: an operand spans %s, more than the %s one kernel argument may bind on %s",
				c.op, gb(int64(end-start)), gb(int64(maxBind)), b.info.Name)
		}
		c.binds = append(c.binds, b.dummy())
		return 0
	}
	c.binds = append(c.binds, binding{buf: buf, off: start, size: end - start})
	return uint32(eoff - lo - int(start)/es)
}

// dummy is a small buffer bound for absent optional operands.
func (b *Backend) dummy() binding {
	if b.dummyBuf == nil {
		buf, err := b.dev.CreateBuffer(&wgpu.BufferDescriptor{Size: 16, Usage: wgpu.BufferUsageStorage})
		if err != nil {
			b.fail(fmt.Errorf("webgpu: placeholder buffer: %w", err))
			return binding{}
		}
		b.dummyBuf = buf
	}
	return binding{buf: b.dummyBuf, size: 16}
}

// readWriteMask marks (bit i) the inputs that share a buffer with an output: those are bound
// read_write (see Backend.pipeline).
func (c *call) readWriteMask() uint32 {
	var rw uint32
	for _, o := range c.binds[:c.nOut] {
		for i, in := range c.binds[c.nOut:] {
			if o.buf == in.buf {
				rw |= 1 << i
			}
		}
	}
	return rw
}

// pipelineKey is the key Backend.pipeline files kernel name's variant key under for this
// call's bindings.
func (c *call) pipelineKey(name, key string) string {
	full := name + "/" + key
	if rw := c.readWriteMask(); rw != 0 {
		full += fmt.Sprintf("/rw%x", rw)
	}
	return full
}

// run queues kernel k (variant key) with the bound arguments, parameters and workgroup counts.
func (c *call) run(k *kernel, key string, params []uint32, gx, gy, gz uint32) {
	b := c.b
	if c.err != nil {
		b.fail(c.err)
		return
	}
	if len(c.binds) != k.nOut+k.nIn {
		b.fail(fmt.Errorf("webgpu: %s: internal error: %d bindings for kernel %s", c.op, len(c.binds), k.name))
		return
	}
	if gx == 0 || gy == 0 || gz == 0 {
		return
	}
	lim := b.lim.MaxComputeWorkgroupsPerDimension
	if gx > lim || gy > lim || gz > lim {
		b.fail(fmt.Errorf("webgpu: %s: %d×%d×%d workgroups exceed the limit %d", c.op, gx, gy, gz, lim))
		return
	}
	rw := c.readWriteMask()
	p, err := b.pipeline(k, key, rw)
	if err != nil {
		b.fail(err)
		return
	}
	if b.bindTrace != nil {
		b.bindTrace(BindingRecord{Op: c.op, Kernel: k.name, Outputs: k.nOut, Inputs: k.nIn, ReadWrite: rw})
	}
	d := dispatch{pipe: p, binds: c.binds, gx: gx, gy: gy, gz: gz, op: c.op}
	if len(params) > len(d.params) {
		b.fail(fmt.Errorf("webgpu: %s: internal error: %d parameters", c.op, len(params)))
		return
	}
	copy(d.params[:], params)
	b.pending = append(b.pending, d)
	if len(b.pending) >= maxPending || (b.prof != nil && len(b.pending) >= profMaxDispatches) {
		b.flushLocked(false)
	}
}

// grid spreads n workgroups over x and y (each at most the per-dimension limit); kernels
// compute their linear workgroup index as wg.y·nwg.x + wg.x and bounds-check it.
func (b *Backend) grid(n int) (gx, gy uint32) {
	if n <= 0 {
		return 0, 0
	}
	lim := int(b.lim.MaxComputeWorkgroupsPerDimension)
	if n <= lim {
		return uint32(n), 1
	}
	return uint32(lim), uint32((n + lim - 1) / lim)
}

func f32u(f float32) uint32 { return math.Float32bits(f) }

func bool32(v bool) uint32 {
	if v {
		return 1
	}
	return 0
}

// flushLocked encodes and submits the pending work; it then waits for the previous
// submission, or with wait for everything.
func (b *Backend) flushLocked(wait bool) {
	if b.closed {
		return
	}
	if b.lost != nil {
		for _, c := range b.up.copies {
			c.src.Release()
		}
		b.up.copies, b.up.staged = nil, 0
		b.pending = b.pending[:0]
		b.releaseDeferred()
		b.dropRing()
		return
	}
	b.submitStaged() // weight uploads first: the work may read them
	if len(b.pending) > 0 {
		b.submit()
	} else {
		b.releaseDeferred()
	}
	if wait {
		b.waitStaged()
		b.waitIdle()
		b.releaseRing()
	}
	b.collect()
}

func (b *Backend) releaseDeferred() {
	for _, buf := range b.toRelease {
		buf.Release()
	}
	b.toRelease = b.toRelease[:0]
}

func (b *Backend) submit() {
	defer func() {
		b.pending = b.pending[:0]
		b.releaseDeferred()
	}()
	nd := 0
	for _, d := range b.pending {
		if d.copySrc == nil {
			nd++
		}
	}
	if nd > 0 {
		need := uint64(nd) * paramSlot
		if b.params == nil || b.paramsCap < need {
			if b.params != nil {
				b.params.Release()
			}
			capacity := max(need, 64*paramSlot)
			buf, err := b.dev.CreateBuffer(&wgpu.BufferDescriptor{Size: capacity, Usage: wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst})
			if err != nil {
				b.params = nil
				b.fail(fmt.Errorf("webgpu: parameter buffer: %w", err))
				return
			}
			b.params, b.paramsCap = buf, capacity
		}
		raw := make([]byte, need)
		i := 0
		for _, d := range b.pending {
			if d.copySrc != nil {
				continue
			}
			for j, w := range d.params {
				binary.LittleEndian.PutUint32(raw[i*paramSlot+4*j:], w)
			}
			i++
		}
		if err := b.queue.WriteBuffer(b.params, 0, raw); err != nil {
			b.fail(fmt.Errorf("webgpu: parameters: %w", err))
			return
		}
	}
	enc, err := b.dev.CreateCommandEncoder(nil)
	if err != nil {
		b.fail(fmt.Errorf("webgpu: command encoder: %w", err))
		return
	}
	defer enc.Release()
	var groups []*wgpu.BindGroup
	defer func() {
		for _, g := range groups {
			g.Release()
		}
	}()
	var pass *wgpu.ComputePassEncoder
	endPass := func() {
		if pass != nil {
			if err := pass.End(); err != nil {
				b.fail(fmt.Errorf("webgpu: compute pass: %w", err))
			}
			pass.Release()
			pass = nil
		}
	}
	slot := uint64(0)
	entries := make([]wgpu.BindGroupEntry, 0, 8)
	var timed []string // profiling: the op of each timed dispatch
	for _, d := range b.pending {
		if d.copySrc != nil {
			endPass()
			if err := enc.CopyBufferToBuffer(d.copySrc, d.copySrcOff, d.copyDst, d.copyDstOff, d.copySize); err != nil {
				b.fail(fmt.Errorf("webgpu: copy: %w", err))
			}
			continue
		}
		entries = append(entries[:0], wgpu.BindGroupEntry{Binding: 0, Buffer: b.params, Offset: slot * paramSlot, Size: paramSlot})
		slot++
		for i, bd := range d.binds {
			entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(i + 1), Buffer: bd.buf, Offset: bd.off, Size: bd.size})
		}
		g, err := b.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: d.pipe.bgl, Entries: entries})
		if err != nil {
			b.fail(fmt.Errorf("webgpu: binding arguments: %w", err))
			continue
		}
		groups = append(groups, g)
		if b.prof != nil { // each dispatch its own pass between two timestamps
			endPass()
			b.prof.stamp(b, enc, 2*len(timed))
		}
		if pass == nil {
			pass = enc.BeginComputePass(nil)
		}
		pass.SetPipeline(d.pipe.cp)
		pass.SetBindGroup(0, g, nil)
		pass.DispatchWorkgroups(d.gx, d.gy, d.gz)
		if b.prof != nil {
			endPass()
			b.prof.stamp(b, enc, 2*len(timed)+1)
			timed = append(timed, d.op)
		}
	}
	endPass()
	if len(timed) > 0 {
		b.prof.resolve(b, enc, len(timed))
	}
	cmd, err := enc.Finish(nil)
	if err != nil {
		b.fail(fmt.Errorf("webgpu: encoding: %w", err))
		return
	}
	idx := b.queue.Submit(cmd)
	cmd.Release()
	prev, prevIdx := b.lastMark, b.lastSub
	b.lastMark, b.lastSub = newMarker(b.queue), idx
	if prev != nil {
		b.waitMarker(prev)
	} else {
		b.dev.Poll(true, &wgpu.WrappedSubmissionIndex{Queue: b.queue, SubmissionIndex: prevIdx})
	}
	if len(timed) > 0 {
		b.waitIdle()
		b.prof.collect(b, timed)
	}
}

// waitMarker polls the device until m's work is done, then frees m.
func (b *Backend) waitMarker(m *marker) {
	b.pollUntil(m.done)
	if m.done() {
		m.free()
	} // else: the device is lost; the callback may still write the flag, so it leaks
}

// waitIdle polls until the last submission is done (wgpu's "queue empty" answer is not
// reliable after its poll timed out).
func (b *Backend) waitIdle() {
	if b.lastMark == nil {
		b.dev.Poll(true, nil) // no markers on this platform
		return
	}
	b.waitMarker(b.lastMark)
	b.lastMark = nil
}

// pollUntil polls the device without blocking until done reports true (or the device is
// lost), sleeping between polls from 20 µs up to 1 ms. wgpu's blocking poll is not used: it
// gives up after 5 s (a long llvmpipe dispatch outlasts it) and was seen to sit out its
// whole timeout with nothing left to wait for.
func (b *Backend) pollUntil(done func() bool) {
	d := 20 * time.Microsecond
	for b.lost == nil {
		b.dev.Poll(false, nil)
		if done() {
			return
		}
		time.Sleep(d)
		d = min(2*d, time.Millisecond)
	}
}
