//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"kleinbild/gpu"
)

// Compiled reports whether this build holds the Vulkan backend.
const Compiled = true

// Options selects the device of New.
type Options struct {
	// Device is an index into Devices(), or -1 for the best device.
	Device int
	// CoopKHR runs the matrix units through VK_KHR_cooperative_matrix even where
	// VK_NV_cooperative_matrix is present (as KLEINBILD_VULKAN_COOP=khr does; coopkhr.go).
	CoopKHR bool
}

// Backend is a gpu.Backend on one Vulkan device. A mutex guards its methods, so calls from
// several goroutines are serialised.
type Backend struct {
	mu      sync.Mutex
	f       *vk
	inst    uintptr
	dev     uintptr
	queue   uintptr
	pd      physical
	cmdPool uint64
	batches [2]*batch
	cur     int // the batch being recorded; the other may be in flight
	pipes   map[string]*pipeline
	dummy   *buffer
	live    map[*buffer]struct{} // buffers not destroyed yet (Close destroys them)
	// linearTile forces Linear's tile (64 or 128) for tests and measurements; 0 picks it
	// by the product's shape.
	linearTile int
	// linearScalar forces linear128.comp where the 128-wide tile would run the vector-load
	// kernels (linearv.comp, linearvi.comp), for tests and measurements.
	linearScalar bool
	// units are the device's matrix units (nil: none, unitsNote says why, e.g. "no matrix
	// units (no VK_NV_cooperative_matrix or VK_KHR_cooperative_matrix)"); fast selects the
	// fast precision (fast.go), scales is its scratch of row scales.
	units     *matrixUnits
	unitsNote string
	// unitsChecked is set once the units' kernels were compared with their twins
	// (verifyUnits, on the first SetPrecision(fast)).
	unitsChecked bool
	fast         bool
	scales       *buffer
	fastForce    string // the fast Linear's kernel for SelfCheck ("": fastKernel's choice)
	// sg is the device's subgroup support (subgroup.go); tests clear sg.arith to run the
	// shared-memory reductions.
	sg subgroups
	// prof times the dispatches while profiling (profile.go), profOp is the op whose
	// dispatch is being recorded.
	prof   *profiler
	profOp string
	// attnPerQuery forces attention's per-query kernel (tests and measurements).
	attnPerQuery bool

	err    error // sticky error since the last Read/Flush/Sync
	lost   error // the device is unusable: returned forever
	closed bool

	resident, peak int64
}

// New opens the Vulkan device opts.Device (-1: the best one).
func New(opts Options) (gpu.Backend, error) {
	b, err := open(opts)
	if err != nil {
		return nil, gpu.NewDeviceError("vulkan", err)
	}
	return b, nil
}

// open creates the instance, the device, its queue and the command pool.
func open(opts Options) (*Backend, error) {
	f, err := loadOnce()
	if err != nil {
		return nil, err
	}
	inst, err := newInstance(f)
	if err != nil {
		return nil, err
	}
	b := &Backend{f: f, inst: inst, pipes: map[string]*pipeline{}, live: map[*buffer]struct{}{}}
	if err := b.init(opts); err != nil {
		b.release()
		return nil, err
	}
	return b, nil
}

func (b *Backend) init(opts Options) error {
	pds, err := physicalDevices(b.f, b.inst)
	if err != nil {
		return err
	}
	if len(pds) == 0 {
		return errors.New("vulkan: no Vulkan device found")
	}
	i := opts.Device
	if i < 0 {
		infos := make([]gpu.DeviceInfo, len(pds))
		for j := range pds {
			infos[j] = pds[j].info
		}
		i = pick(infos)
	}
	if i >= len(pds) {
		return fmt.Errorf("vulkan: device %d does not exist (%d devices)", opts.Device, len(pds))
	}
	b.pd = pds[i]
	b.sg = querySubgroups(b.f, b.pd.handle)
	fam := computeFamily(b.f, b.pd.handle)
	if fam < 0 {
		return fmt.Errorf("vulkan: %s has no compute queue", b.pd.info.Name)
	}
	if b.pd.lim.maxPush < pushBytes {
		return fmt.Errorf("vulkan: %s allows %d bytes of push constants, fewer than %d", b.pd.info.Name, b.pd.lim.maxPush, pushBytes)
	}
	var why string
	if b.units, why = probeUnits(b.f, b.inst, b.pd.handle, forceKHR(opts)); b.units == nil {
		b.unitsNote = "no matrix units (" + why + ")"
	}
	if b.dev, b.queue, err = createDevice(b.f, b.pd.handle, fam, b.units); err != nil {
		return fmt.Errorf("vulkan: opening %s: %w", b.pd.info.Name, err)
	}
	var ps pins
	defer ps.p.Unpin()
	ci := &commandPoolCreateInfo{sType: stCommandPoolCreateInfo, flags: 2, queueFamilyIndex: uint32(fam)} // RESET_COMMAND_BUFFER
	if err := result("vkCreateCommandPool", b.f.createCommandPool, b.dev, ptr(&ps, ci), 0, ptr(&ps, &b.cmdPool)); err != nil {
		return err
	}
	for j := range b.batches {
		if b.batches[j], err = b.newBatch(); err != nil {
			return err
		}
	}
	if b.dummy, err = b.newBuffer(16); err != nil {
		return err
	}
	b.resident, b.peak = 0, 0 // the dummy binding is not a tensor
	return nil
}

// release destroys what open created (no work in flight).
func (b *Backend) release() {
	f := b.f
	if b.dev != 0 {
		b.waitIdle()
		for _, bt := range b.batches {
			if bt == nil {
				continue
			}
			b.complete(bt)
			for _, s := range bt.staging {
				b.destroyStaging(s)
			}
			for _, p := range bt.pools {
				vkcall(f.destroyDescriptorPool, b.dev, uintptr(p), 0)
			}
			vkcall(f.destroyFence, b.dev, uintptr(bt.fence), 0)
		}
		if b.prof != nil {
			b.releaseProfile(b.prof)
		}
		for _, p := range b.pipes {
			b.destroyPipeline(p)
		}
		for x := range b.live { // tensors never freed, and the dummy binding
			x.freed = true
			b.destroy(x)
		}
		if b.cmdPool != 0 {
			vkcall(f.destroyCommandPool, b.dev, uintptr(b.cmdPool), 0)
		}
		vkcall(f.destroyDevice, b.dev, 0)
	}
	vkcall(f.destroyInstance, b.inst, 0)
}

// Name is "vulkan".
func (b *Backend) Name() string { return "vulkan" }

// Info describes the device.
func (b *Backend) Info() gpu.DeviceInfo { return b.pd.info }

// fail records the first error.
func (b *Backend) fail(err error) {
	if err != nil && b.err == nil {
		b.err = err
	}
}

// failVK records a failed Vulkan call; a lost device stays lost.
func (b *Backend) failVK(err error) {
	if deviceLost(err) && b.lost == nil {
		b.lost = fmt.Errorf("vulkan: device %s lost: %w", b.pd.info.Name, err)
	}
	b.fail(err)
}

// takeErr returns and clears the sticky error (a lost device is never cleared), as a
// *gpu.DeviceError.
func (b *Backend) takeErr() error {
	if b.lost != nil {
		return gpu.NewDeviceError("vulkan", b.lost)
	}
	err := b.err
	b.err = nil
	return gpu.NewDeviceError("vulkan", err)
}

// wrapDeviceError makes *err, the error an exported method returns, a *gpu.DeviceError.
func wrapDeviceError(err *error) { *err = gpu.NewDeviceError("vulkan", *err) }

// begin locks the backend for an op; false (unlocked) when no work may be queued.
func (b *Backend) begin() bool {
	b.mu.Lock()
	if b.closed {
		b.fail(errors.New("vulkan: backend is closed"))
	}
	if b.closed || b.lost != nil {
		b.mu.Unlock()
		return false
	}
	return true
}

// own returns t's buffer when it belongs to b and is live.
func (b *Backend) own(op string, t gpu.Tensor) (*buffer, error) {
	x, ok := t.Buffer().(*buffer)
	if !ok || x.b != b {
		return nil, fmt.Errorf("vulkan: %s: tensor %v does not belong to this backend", op, t)
	}
	if x.freed {
		return nil, fmt.Errorf("vulkan: %s: tensor %v was freed", op, t)
	}
	return x, nil
}

func checkShape(shape []int) (int, error) {
	if len(shape) == 0 {
		return 0, errors.New("vulkan: tensor without shape")
	}
	n := 1
	for _, s := range shape {
		if s < 0 || (s > 0 && n > math.MaxInt32*64/s) {
			return 0, fmt.Errorf("vulkan: invalid shape %v", shape)
		}
		n *= s
	}
	return n, nil
}

// Alloc returns an uninitialised tensor.
func (b *Backend) Alloc(dtype gpu.DType, shape ...int) (_ gpu.Tensor, err error) {
	defer wrapDeviceError(&err)
	if !b.begin() {
		return gpu.Tensor{}, b.unusable()
	}
	defer b.mu.Unlock()
	n, err := checkShape(shape)
	if err != nil {
		return gpu.Tensor{}, err
	}
	if dtype != gpu.F32 && dtype != gpu.BF16 {
		return gpu.Tensor{}, fmt.Errorf("vulkan: Alloc: unsupported dtype %v", dtype)
	}
	x, err := b.newBuffer(int64(n) * int64(dtype.Size()))
	if err != nil {
		return gpu.Tensor{}, err
	}
	return gpu.NewTensor(x, 0, dtype, shape...), nil
}

// unusable is the error of a closed backend or lost device (called unlocked, after begin).
func (b *Backend) unusable() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lost != nil {
		return b.lost
	}
	b.err = nil
	return errors.New("vulkan: backend is closed")
}

// WeightF32 copies data into a new read-only tensor.
func (b *Backend) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	return b.weight("WeightF32", gpu.F32, len(data), shape, 4, shape, func(dst []byte, lo int) {
		for i := range len(dst) / 4 {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(data[lo+i]))
		}
	})
}

// WeightBF16 copies bits into a new read-only tensor (kept as bf16 on the device).
func (b *Backend) WeightBF16(bits []uint16, shape ...int) (gpu.Tensor, error) {
	return b.weight("WeightBF16", gpu.BF16, len(bits), shape, 2, shape, func(dst []byte, lo int) {
		for i := range len(dst) / 2 {
			binary.LittleEndian.PutUint16(dst[2*i:], bits[lo+i])
		}
	})
}

// WeightQuant copies raw, still packed, into one read-only buffer (at most one binding:
// larger weights are an error); Linear decodes its blocks inside the kernel.
func (b *Backend) WeightQuant(dtype gpu.DType, raw []byte, shape ...int) (_ gpu.Tensor, err error) {
	defer wrapDeviceError(&err)
	n, err := gpu.CheckQuant(dtype, raw, shape)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("vulkan: %w", err)
	}
	if n > math.MaxUint32 {
		return gpu.Tensor{}, fmt.Errorf("vulkan: WeightQuant: %d values exceed the kernels' 32-bit indices", n)
	}
	if maxBind := b.pd.lim.maxStorageRange; uint64(len(raw)) > maxBind {
		return gpu.Tensor{}, fmt.Errorf("vulkan: WeightQuant: %v weight of %s exceeds the binding limit %s of %s", dtype, gb(int64(len(raw))), gb(int64(maxBind)), b.pd.info.Name)
	}
	return b.weight("WeightQuant", dtype, len(raw), []int{len(raw)}, 1, shape, func(dst []byte, lo int) { copy(dst, raw[lo:]) })
}

// QuantTypes lists the quantized dtypes WeightQuant and Linear support: all of them.
func QuantTypes() []gpu.DType { return gpu.QuantTypes() }

// weight creates a read-only tensor of dtype and shape holding n units of es bytes (values;
// for quantized weights bytes, in the layout units), filled in pieces by fill(dst, lo) with
// the bytes of units [lo, lo + len(dst)/es).
func (b *Backend) weight(op string, dtype gpu.DType, n int, layout []int, es int, shape []int, fill func(dst []byte, lo int)) (_ gpu.Tensor, err error) {
	defer wrapDeviceError(&err)
	if !b.begin() {
		return gpu.Tensor{}, b.unusable()
	}
	defer b.mu.Unlock()
	if _, err := checkShape(shape); err != nil {
		return gpu.Tensor{}, err
	}
	units, err := checkShape(layout)
	if err != nil {
		return gpu.Tensor{}, err
	}
	if units != n {
		return gpu.Tensor{}, fmt.Errorf("vulkan: %s: %d values do not fill shape %v", op, n, shape)
	}
	x, err := b.newBuffer(int64(n * es))
	if err != nil {
		return gpu.Tensor{}, err
	}
	x.weight = true
	const piece = 16 << 20 // bytes per staged piece
	per := piece / es
	for lo := 0; lo < n; lo += per {
		k := min(per, n-lo)
		s, off, err := b.stage(uint64(k * es))
		if err != nil {
			b.freeLocked(x)
			return gpu.Tensor{}, err
		}
		fill(s.data[off:off+uint64(k*es)], lo)
		b.copyBuffer(s.buf, x.buf, off, uint64(lo*es), uint64(k*es))
	}
	if b.err != nil {
		err := b.takeErr()
		b.freeLocked(x)
		return gpu.Tensor{}, err
	}
	return gpu.NewTensor(x, 0, dtype, shape...), nil
}

// Upload copies src into the F32 tensor dst.
func (b *Backend) Upload(dst gpu.Tensor, src []float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	x, err := b.own("Upload", dst)
	if err != nil {
		b.fail(err)
		return
	}
	if dst.DType() != gpu.F32 || len(src) != dst.Len() {
		b.fail(fmt.Errorf("vulkan: Upload: %d values into %v", len(src), dst))
		return
	}
	if x.weight {
		b.fail(fmt.Errorf("vulkan: Upload: %v is a read-only weight", dst))
		return
	}
	const per = 4 << 20 // values per staged piece
	for lo := 0; lo < len(src); lo += per {
		k := min(per, len(src)-lo)
		s, off, err := b.stage(uint64(4 * k))
		if err != nil {
			b.fail(fmt.Errorf("vulkan: Upload: %w", err))
			return
		}
		d := s.data[off : off+uint64(4*k)]
		for i, v := range src[lo : lo+k] {
			binary.LittleEndian.PutUint32(d[4*i:], math.Float32bits(v))
		}
		b.copyBuffer(s.buf, x.buf, off, uint64(4*(dst.Offset()+lo)), uint64(4*k))
	}
}

// Read waits for the queued work and copies src into dst.
func (b *Backend) Read(dst []float32, src gpu.Tensor) (err error) {
	defer wrapDeviceError(&err)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errors.New("vulkan: backend is closed")
	}
	x, err := b.own("Read", src)
	if err == nil && (len(dst) != src.Len() || src.DType().Quantized()) {
		err = fmt.Errorf("vulkan: Read: %d values from %v", len(dst), src)
	}
	if err != nil || len(dst) == 0 || b.lost != nil {
		b.submit(true)
		b.fail(err)
		return b.takeErr()
	}
	es := src.DType().Size()
	size := uint64(len(dst) * es)
	s, off, err := b.stage(size)
	if err != nil {
		b.submit(true)
		b.fail(fmt.Errorf("vulkan: Read: %w", err))
		return b.takeErr()
	}
	b.copyBuffer(x.buf, s.buf, uint64(src.Offset()*es), off, size)
	if bt := b.rec(); bt != nil {
		b.hostBarrier(bt)
		bt.after = append(bt.after, func() {
			raw := s.data[off : off+size]
			if es == 4 {
				for i := range dst {
					dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
				}
				return
			}
			for i := range dst {
				dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
			}
		})
	}
	b.submit(true)
	return b.takeErr()
}

// hostBarrier makes the batch's copies visible to the host once its fence signals.
func (b *Backend) hostBarrier(bt *batch) {
	var ps pins
	defer ps.p.Unpin()
	mb := &memoryBarrier{sType: stMemoryBarrier, srcAccessMask: accTransferWrite, dstAccessMask: accHostRead}
	vkcall(b.f.cmdPipelineBarrier, bt.cmd, pipeStageTransfer, pipeStageHost, 0, 1, ptr(&ps, mb), 0, 0, 0, 0)
}

// Free releases t's buffer once no queued work uses it.
func (b *Backend) Free(t gpu.Tensor) {
	if t.IsZero() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	x, ok := t.Buffer().(*buffer)
	if !ok || x.b != b {
		b.fail(fmt.Errorf("vulkan: Free: tensor %v does not belong to this backend", t))
		return
	}
	if b.closed {
		return
	}
	b.freeLocked(x)
}

func (b *Backend) freeLocked(x *buffer) {
	if x.freed {
		return
	}
	x.freed = true
	b.resident -= int64(x.size)
	bt := b.batches[b.cur]
	if bt.recording || bt.inFlight || b.batches[1-b.cur].inFlight {
		bt.release = append(bt.release, x)
		return
	}
	b.destroy(x)
}

// Flush submits the queued work and waits for the previous submission.
func (b *Backend) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.submit(false)
	}
	return b.takeErr()
}

// Sync waits for all queued work.
func (b *Backend) Sync() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.submit(true)
	}
	return b.takeErr()
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

// Close waits for the queued work and releases the device.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.submit(true)
	err := b.takeErr()
	b.closed = true
	b.release()
	return err
}
