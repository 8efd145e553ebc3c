//go:build cgo

package webgpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"kleinbild/gpu"
)

// Backend is a gpu.Backend on one WebGPU device. Its methods are not safe for concurrent
// use (as every gpu.Backend: one model runs on it at a time); a mutex guards them anyway so
// that misuse cannot corrupt the device state.
type Backend struct {
	mu      sync.Mutex
	info    gpu.DeviceInfo
	detail  Adapter
	inst    *wgpu.Instance
	adapter *wgpu.Adapter
	dev     *wgpu.Device
	queue   *wgpu.Queue
	lim     wgpu.Limits
	scopes  *scopes
	up      uploadStats // weight uploads (upload.go)
	ring    stagingRing // their staging buffers (upload_ring.go)

	pipes    map[string]*pipeline
	variants map[string]string // kernel family -> variant set by SetVariant (variant.go)
	forced   map[string]bool   // families whose variant was forced (Options.Variants, env)
	// linearLarge is the variant of Linears of linearLargeRows rows or more ("": FamilyLinear's).
	linearLarge string
	rates       deviceRates // measured rates that size dispatches (dispatch.go)
	tuned       bool        // a current tuning is applied (Tuned)
	timestamps  bool        // the device has timestamp queries (profile.go)
	prof        *profiler   // non-nil while profiling
	defLim      bool        // opened with WebGPU's default limits
	cacheDir    string      // tuning cache folder (Options.CacheDir)

	dispatchFLOPs float64 // bound on one Linear/Conv2D dispatch, 0: the default (gemm.go)

	bindTrace func(BindingRecord) // TraceBindings' hook (nil: none)

	// linearDeep is the variant of Linears below linearLargeRows rows of depth linearDeepK
	// or more ("": FamilyLinear's; tune_class.go).
	linearDeep string
	// linearShapes are the per-shape Linear variants, over the classes (tune_shape.go).
	linearShapes map[shapeKey]string
	split        splitPool // split K's partial sums, reused (gemm_splitk.go)

	pending   []dispatch
	toRelease []*wgpu.Buffer // freed while pending work may still bind them
	params    *wgpu.Buffer   // uniform slots of the dispatches of one submission
	paramsCap uint64
	lastSub   wgpu.SubmissionIndex
	lastMark  *marker // completion of the last submission

	err    error // sticky error since the last Read/Flush/Sync
	lost   error // the device is unusable: returned forever
	closed bool

	dummyBuf *wgpu.Buffer

	resident, peak int64
}

// paramSlot is the bytes of uniform parameters per dispatch (minUniformBufferOffsetAlignment
// is at most 256 on every adapter).
const paramSlot = 256

// buffer is the gpu.Buffer of this backend: one wgpu buffer, or for weights larger than one
// binding, several buffers of chunkElems elements each (whole rows).
type buffer struct {
	b          *Backend
	dtype      gpu.DType
	bufs       []*wgpu.Buffer
	sizes      []int64 // bytes of each buffer
	chunkElems int     // elements per buffer when len(bufs) > 1
	bytes      int64
	freed      bool
	weight     bool // ops refuse to write it
}

// Bytes is the buffer's size.
func (x *buffer) Bytes() int64 { return x.bytes }

// New opens the adapter opts.Adapter (an index into Adapters(), -1 for the best one) and
// creates a device with the adapter's own limits (or WebGPU's defaults, see Options), then
// applies forced variants and, with opts.Tuned, the tuning cache.
//
// Device creation fails now and then on lavapipe after several devices were created and
// released in one process (seen once in 8–20 opens, "failed to request device"); New then
// starts over from a new instance, up to four times.
func New(opts Options) (_ *Backend, err error) {
	defer wrapDeviceError(&err)
	for attempt := 0; attempt < 4; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt*attempt) * 50 * time.Millisecond)
		}
		var b *Backend
		var retry bool
		if b, retry, err = openOnce(opts); err == nil || !retry {
			if err == nil {
				err = b.configure(opts)
			}
			return b, err
		}
	}
	return nil, err
}

// configure applies forced variants (Options.Variants, then $KLEINBILD_WEBGPU_VARIANTS) and,
// with opts.Tuned, the cached tuning of this adapter; b is closed on error.
func (b *Backend) configure(opts Options) error {
	forced := map[string]string{}
	for f, v := range opts.Variants {
		forced[f] = v
	}
	env, err := ParseVariants(os.Getenv(EnvVariants))
	if err != nil {
		b.Close()
		return fmt.Errorf("$%s: %w", EnvVariants, err)
	}
	for f, v := range env {
		forced[f] = v
	}
	if err := b.applyForced(forced); err != nil {
		b.Close()
		return err
	}
	b.cacheDir = opts.CacheDir
	if opts.Tuned {
		b.applyCache(opts.CacheDir)
		if needsProbe(b.info.Kind, b.rates) {
			// An untuned real GPU sizes its dispatches from its FMA peak (a failed probe
			// leaves the kind's default rate).
			if g, err := b.probeFMA(context.Background()); err == nil {
				b.setFMAGFLOPS(g)
			}
		}
	}
	return nil
}

// openOnce is one attempt of New; retry reports whether a failure may be transient.
func openOnce(opts Options) (_ *Backend, retry bool, _ error) {
	inst, err := newInstance()
	if err != nil {
		return nil, false, err
	}
	ads := inst.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: wgpu.InstanceBackendPrimary})
	infos := make([]gpu.DeviceInfo, len(ads))
	details := make([]Adapter, len(ads))
	for i, a := range ads {
		details[i] = describeAdapter(a)
		details[i].index = i
		infos[i] = details[i].Info
	}
	pick := opts.Adapter
	if pick < 0 {
		pick = pickAdapter(infos)
	}
	release := func(keep int) {
		for i, a := range ads {
			if i != keep {
				a.Release()
			}
		}
	}
	if len(ads) == 0 {
		inst.Release()
		return nil, false, errors.New("webgpu: no adapter (no Vulkan, Metal or Direct3D 12 device found)")
	}
	if pick >= len(ads) {
		release(-1)
		inst.Release()
		return nil, false, fmt.Errorf("webgpu: adapter %d does not exist (%d adapters)", opts.Adapter, len(ads))
	}
	release(pick)
	ad := ads[pick]
	defLim := opts.DefaultLimits || envDefaultLimits()
	lim := openLimits(ad.GetLimits().Limits, infos[pick].MemoryBytes, defLim)
	var feats []wgpu.FeatureName
	if ad.HasFeature(wgpu.FeatureNameTimestampQuery) { // for profiling (profile.go)
		feats = append(feats, wgpu.FeatureNameTimestampQuery)
	}
	dev, err := ad.RequestDevice(&wgpu.DeviceDescriptor{
		Label:            "kleinbild",
		RequiredFeatures: feats,
		RequiredLimits:   &wgpu.RequiredLimits{Limits: lim},
	})
	if err != nil {
		ad.Release()
		inst.Release()
		return nil, true, fmt.Errorf("webgpu: opening %s: %w", infos[pick].Name, err)
	}
	b := &Backend{
		info:    infos[pick],
		detail:  details[pick],
		inst:    inst,
		adapter: ad,
		dev:     dev,
		queue:   dev.GetQueue(),
		lim:     lim,
		pipes:   map[string]*pipeline{},
		defLim:  defLim,

		timestamps: len(feats) > 0,
	}
	if !defLim {
		// With WebGPU's defaults wgpu-native reports the adapter's limits for the device:
		// the kernels must see the limits asked for.
		b.lim = deviceLimits(lim, dev.GetLimits().Limits)
	}
	b.info.MaxBufferBytes = int64(b.lim.MaxBufferSize)
	b.info.MaxBindingBytes = int64(b.lim.MaxStorageBufferBindingSize)
	b.scopes = newScopes(dev)
	b.scopes.push()
	return b, false, nil
}

// Name is "webgpu".
func (b *Backend) Name() string { return "webgpu" }

// Info describes the adapter.
func (b *Backend) Info() gpu.DeviceInfo { return b.info }

// Adapter is the adapter b runs on, as AdapterDetails lists it.
func (b *Backend) Adapter() Adapter { return b.detail }

// fail records the first error.
func (b *Backend) fail(err error) {
	if err != nil && b.err == nil {
		b.err = err
	}
}

// takeErr returns and clears the sticky error (a lost device is never cleared), as a
// *gpu.DeviceError.
func (b *Backend) takeErr() error {
	if b.lost != nil {
		return gpu.NewDeviceError("webgpu", b.lost)
	}
	err := b.err
	b.err = nil
	return gpu.NewDeviceError("webgpu", err)
}

// wrapDeviceError makes *err, the error an exported method returns, a *gpu.DeviceError.
func wrapDeviceError(err *error) { *err = gpu.NewDeviceError("webgpu", *err) }

// collect closes and reopens the device's error scopes and records what they caught.
func (b *Backend) collect() {
	typ, msg := b.scopes.pop()
	b.scopes.push()
	switch typ {
	case 0:
	case 2: // OutOfMemory
		b.fail(fmt.Errorf("webgpu: out of memory on %s: %s", b.info.Name, msg))
	case 5: // DeviceLost
		b.lose(fmt.Errorf("webgpu: device %s lost: %s", b.info.Name, msg))
	default:
		b.fail(fmt.Errorf("webgpu: device error on %s: %s", b.info.Name, firstLine(msg)))
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

func (b *Backend) lose(err error) {
	if b.lost == nil {
		b.lost = err
		b.pending = nil
	}
}

// usable reports whether new work may be queued (no lost device, not closed).
func (b *Backend) usable() bool {
	if b.closed {
		b.fail(errors.New("webgpu: backend is closed"))
		return false
	}
	return b.lost == nil
}

// ---- memory ----

func (b *Backend) track(n int64) {
	b.resident += n
	b.peak = max(b.peak, b.resident)
}

// Memory reports the bytes of live buffers.
func (b *Backend) Memory() gpu.MemStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return gpu.MemStats{Resident: b.resident, Peak: b.peak}
}

// ResetPeak sets the peak to the bytes held now.
func (b *Backend) ResetPeak() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.peak = b.resident
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

// createBuffer makes one storage buffer of n bytes (n rounded up to 4).
func (b *Backend) createBuffer(n int64) (*wgpu.Buffer, int64, error) {
	n = max((n+3)&^3, 4)
	if uint64(n) > b.lim.MaxBufferSize {
		return nil, 0, fmt.Errorf("webgpu: cannot allocate %s on %s: larger than its maximum buffer size %s", gb(n), b.info.Name, gb(int64(b.lim.MaxBufferSize)))
	}
	buf, err := b.dev.CreateBuffer(&wgpu.BufferDescriptor{
		Size:  uint64(n),
		Usage: wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst,
	})
	if err == nil {
		// Out of memory is reported through the scopes, not the wrapped call.
		typ, msg := b.scopes.pop()
		b.scopes.push()
		if typ == 2 {
			if buf != nil {
				buf.Release()
			}
			return nil, 0, fmt.Errorf("webgpu: out of memory allocating %s on %s: %s", gb(n), b.info.Name, msg)
		}
		if typ != 0 {
			b.fail(fmt.Errorf("webgpu: device error on %s: %s", b.info.Name, firstLine(msg)))
		}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("webgpu: allocating %s on %s: %w", gb(n), b.info.Name, err)
	}
	b.track(n)
	return buf, n, nil
}

// newBuffer allocates elems elements of dtype, split into chunks of whole rows of rowElems
// elements when one buffer would exceed a binding (rowElems 0: never split).
func (b *Backend) newBuffer(dtype gpu.DType, elems, rowElems int) (*buffer, error) {
	if !b.usable() {
		if b.lost != nil {
			return nil, b.lost
		}
		return nil, errors.New("webgpu: backend is closed")
	}
	es := int64(dtype.Size())
	total := int64(elems) * es
	x := &buffer{b: b, dtype: dtype, bytes: total}
	maxBind := int64(b.lim.MaxStorageBufferBindingSize)
	if rowElems > 0 && total > maxBind {
		rowBytes := int64(rowElems) * es
		rowsPer := maxBind / rowBytes
		if dtype == gpu.BF16 && rowElems%2 == 1 {
			rowsPer &^= 1 // chunks must start on a 32-bit word
		}
		if rowsPer == 0 {
			return nil, fmt.Errorf("webgpu: a weight row of %s exceeds the binding limit %s of %s", gb(rowBytes), gb(maxBind), b.info.Name)
		}
		x.chunkElems = int(rowsPer) * rowElems
	}
	if x.chunkElems == 0 {
		buf, n, err := b.createBuffer(total)
		if err != nil {
			return nil, err
		}
		x.bufs, x.sizes = []*wgpu.Buffer{buf}, []int64{n}
		return x, nil
	}
	for lo := 0; lo < elems; lo += x.chunkElems {
		n := min(x.chunkElems, elems-lo)
		buf, sz, err := b.createBuffer(int64(n) * es)
		if err != nil {
			b.releaseBuffer(x)
			return nil, err
		}
		x.bufs, x.sizes = append(x.bufs, buf), append(x.sizes, sz)
	}
	return x, nil
}

func (b *Backend) releaseBuffer(x *buffer) {
	if x.freed {
		return
	}
	x.freed = true
	for i, buf := range x.bufs {
		b.resident -= x.sizes[i]
		if len(b.pending) > 0 || len(b.up.copies) > 0 {
			b.toRelease = append(b.toRelease, buf)
		} else {
			buf.Release()
		}
	}
	x.bufs = nil
}

func checkShape(shape []int) (int, error) {
	if len(shape) == 0 {
		return 0, errors.New("webgpu: tensor without shape")
	}
	n := 1
	for _, s := range shape {
		if s < 0 || (s > 0 && n > math.MaxInt32*64/s) {
			return 0, fmt.Errorf("webgpu: invalid shape %v", shape)
		}
		n *= s
	}
	return n, nil
}

// Alloc returns an uninitialised tensor.
func (b *Backend) Alloc(dtype gpu.DType, shape ...int) (_ gpu.Tensor, err error) {
	defer wrapDeviceError(&err)
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := checkShape(shape)
	if err != nil {
		return gpu.Tensor{}, err
	}
	if dtype != gpu.F32 && dtype != gpu.BF16 {
		return gpu.Tensor{}, fmt.Errorf("webgpu: Alloc: unsupported dtype %v", dtype)
	}
	x, err := b.newBuffer(dtype, n, 0)
	if err != nil {
		return gpu.Tensor{}, err
	}
	return gpu.NewTensor(x, 0, dtype, shape...), nil
}

// WeightF32 copies data into a new read-only tensor.
func (b *Backend) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	return b.weight("WeightF32", gpu.F32, len(data), shape, func(lo, hi int) []byte { return f32Bytes(data[lo:hi]) })
}

// WeightBF16 copies bits into a new read-only tensor (kept as bf16 on the device).
func (b *Backend) WeightBF16(bits []uint16, shape ...int) (gpu.Tensor, error) {
	return b.weight("WeightBF16", gpu.BF16, len(bits), shape, func(lo, hi int) []byte { return bf16Bytes(bits[lo:hi]) })
}

// weight creates a read-only tensor of n values and fills its buffers (one per row chunk
// for weights larger than one binding) with bytes(lo, hi), the bytes of values [lo, hi).
func (b *Backend) weight(op string, dtype gpu.DType, n int, shape []int, bytes func(lo, hi int) []byte) (_ gpu.Tensor, err error) {
	defer wrapDeviceError(&err)
	b.mu.Lock()
	defer b.mu.Unlock()
	elems, err := checkShape(shape)
	if err != nil {
		return gpu.Tensor{}, err
	}
	if elems != n {
		return gpu.Tensor{}, fmt.Errorf("webgpu: %s: %d values do not fill shape %v", op, n, shape)
	}
	x, err := b.newBuffer(dtype, n, shape[len(shape)-1])
	if err != nil {
		return gpu.Tensor{}, err
	}
	x.weight = true
	for i, buf := range x.bufs { // a new buffer: no queued work reads it (no flush)
		lo := i * max(x.chunkElems, 1)
		hi := n
		if x.chunkElems > 0 {
			hi = min(n, lo+x.chunkElems)
		}
		b.stage(buf, 0, bytes(lo, hi))
	}
	return gpu.NewTensor(x, 0, dtype, shape...), nil
}

// write copies data into buf at byte offset off in pieces (queue writes are staged).
func (b *Backend) write(buf *wgpu.Buffer, off uint64, data []byte) {
	const piece = 4 << 20
	for len(data) > 0 {
		n := min(len(data), piece)
		if err := b.queue.WriteBuffer(buf, off, data[:n]); err != nil {
			b.fail(fmt.Errorf("webgpu: upload: %w", err))
			return
		}
		off += uint64(n)
		data = data[n:]
	}
}

// f32Bytes are v's bytes, little-endian: v's own memory on little-endian hosts (callers
// only read them), else a copy.
func f32Bytes(v []float32) []byte {
	if littleEndian {
		return viewBytes(v)
	}
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

// bf16Bytes are v's bytes as f32Bytes; the copy on big-endian hosts is padded to 4 bytes.
func bf16Bytes(v []uint16) []byte {
	if littleEndian {
		return viewBytes(v)
	}
	out := make([]byte, (2*len(v)+3)&^3)
	for i, h := range v {
		binary.LittleEndian.PutUint16(out[2*i:], h)
	}
	return out
}

// own returns t's buffer when it belongs to b and is live.
func (b *Backend) own(op string, t gpu.Tensor) (*buffer, error) {
	x, ok := t.Buffer().(*buffer)
	if !ok || x.b != b {
		return nil, fmt.Errorf("webgpu: %s: tensor %v does not belong to this backend", op, t)
	}
	if x.freed {
		return nil, fmt.Errorf("webgpu: %s: tensor %v was freed", op, t)
	}
	return x, nil
}

// Upload copies src into the F32 tensor dst.
func (b *Backend) Upload(dst gpu.Tensor, src []float32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.usable() {
		return
	}
	x, err := b.own("Upload", dst)
	if err != nil {
		b.fail(err)
		return
	}
	if dst.DType() != gpu.F32 || len(src) != dst.Len() {
		b.fail(fmt.Errorf("webgpu: Upload: %d values into %v", len(src), dst))
		return
	}
	if len(src) == 0 {
		return
	}
	buf, off, err := x.locate(dst.Offset(), dst.Len())
	if err != nil {
		b.fail(fmt.Errorf("webgpu: Upload: %w", err))
		return
	}
	b.flushLocked(false) // earlier ops must see the old contents
	b.write(buf, uint64(off)*4, f32Bytes(src))
}

// locate returns the wgpu buffer and element offset within it of elements [off, off+n) of x,
// which must lie in one chunk.
func (x *buffer) locate(off, n int) (*wgpu.Buffer, int, error) {
	if len(x.bufs) == 1 {
		return x.bufs[0], off, nil
	}
	c := off / x.chunkElems
	if (off+n-1)/x.chunkElems != c {
		return nil, 0, fmt.Errorf("elements [%d, %d) span two weight chunks of %d", off, off+n, x.chunkElems)
	}
	return x.bufs[c], off - c*x.chunkElems, nil
}

// Read waits for the queued work and copies src into dst.
func (b *Backend) Read(dst []float32, src gpu.Tensor) (err error) {
	defer wrapDeviceError(&err)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errors.New("webgpu: backend is closed")
	}
	x, err := b.own("Read", src)
	if err == nil && (len(dst) != src.Len() || src.DType().Quantized()) {
		err = fmt.Errorf("webgpu: Read: %d values from %v", len(dst), src)
	}
	if err != nil {
		b.flushLocked(true)
		b.fail(err)
		return b.takeErr()
	}
	if len(dst) == 0 || b.lost != nil {
		b.flushLocked(true)
		return b.takeErr()
	}
	es := src.DType().Size()
	buf, off, err := x.locate(src.Offset(), src.Len())
	if err != nil {
		b.flushLocked(true)
		b.fail(fmt.Errorf("webgpu: Read: %w", err))
		return b.takeErr()
	}
	start := uint64(off*es) &^ 3
	end := (uint64((off+src.Len())*es) + 3) &^ 3
	size := end - start
	staging, err := b.dev.CreateBuffer(&wgpu.BufferDescriptor{Size: size, Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst})
	if err != nil {
		b.flushLocked(true)
		b.fail(fmt.Errorf("webgpu: Read: staging buffer of %s: %w", gb(int64(size)), err))
		return b.takeErr()
	}
	defer staging.Release()
	b.pending = append(b.pending, dispatch{copySrc: buf, copySrcOff: start, copyDst: staging, copySize: size})
	b.flushLocked(true)
	if b.lost != nil || b.err != nil {
		return b.takeErr()
	}
	poll, err := mapRead(staging, size)
	if err != nil {
		b.fail(fmt.Errorf("webgpu: Read: map: %w", err))
		return b.takeErr()
	}
	var status wgpu.BufferMapAsyncStatus
	ok := false
	b.pollUntil(func() bool { status, ok = poll(); return ok })
	if !ok || status != wgpu.BufferMapAsyncStatusSuccess {
		if status == wgpu.BufferMapAsyncStatusDeviceLost {
			b.lose(fmt.Errorf("webgpu: device %s lost", b.info.Name))
		} else {
			b.collect()
			b.fail(fmt.Errorf("webgpu: Read: mapping failed (status %v, done %v)", status, ok))
		}
		return b.takeErr()
	}
	raw := staging.GetMappedRange(0, uint(size))
	skip := (off * es) - int(start)
	if src.DType() == gpu.F32 {
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[skip+4*i:]))
		}
	} else {
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[skip+2*i:])) << 16)
		}
	}
	staging.Unmap()
	return b.takeErr()
}

// Free releases t's buffer.
func (b *Backend) Free(t gpu.Tensor) {
	if t.IsZero() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	x, ok := t.Buffer().(*buffer)
	if !ok || x.b != b {
		b.fail(fmt.Errorf("webgpu: Free: tensor %v does not belong to this backend", t))
		return
	}
	b.releaseBuffer(x)
}

// Flush submits the queued work and waits for the previous submission.
func (b *Backend) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked(false)
	return b.takeErr()
}

// Sync waits for all queued work.
func (b *Backend) Sync() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked(true)
	return b.takeErr()
}

// Close releases the device.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.flushLocked(true)
	err := b.takeErr()
	b.closed = true
	b.releaseSplit()
	for _, p := range b.pipes {
		p.release()
	}
	b.pipes = nil
	if b.params != nil {
		b.params.Release()
	}
	if b.prof != nil {
		b.prof.release()
		b.prof = nil
	}
	b.scopes.pop()
	b.scopes.free()
	b.queue.Release()
	b.dev.Release()
	b.adapter.Release()
	b.inst.Release()
	return err
}
