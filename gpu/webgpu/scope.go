//go:build cgo

package webgpu

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The error-scope entry points of wgpu-native, which package wgpu links but does not wrap
// for the filters needed here. On ELF and Mach-O they are weak references: they resolve
// against the wgpu-native static library linked through package wgpu, and to NULL where it is
// absent (then scopes are off). PE/COFF (Windows) has no weak undefined symbols; there they
// are plain references, which always resolve because package wgpu calls the same functions
// itself (buffer.go, device.go), so the static library linked on Windows holds them.
// Without scopes wgpu-native aborts the process on an uncaptured error (out of memory
// included); with them every error becomes the backend's sticky error, on every platform.
#if defined(_WIN32)
#define KB_WEAK
#define KB_HAVE(f) 1
#else
#define KB_WEAK __attribute__((weak))
#define KB_HAVE(f) ((f) != NULL)
#endif
extern void wgpuDevicePushErrorScope(void *device, uint32_t filter) KB_WEAK;
extern void wgpuDevicePopErrorScope(void *device, void (*cb)(uint32_t, char const *, void *), void *userdata) KB_WEAK;

typedef struct {
	uint32_t type;
	char msg[1024];
} kbScopeResult;

static void kb_scope_cb(uint32_t type, char const *message, void *ud) {
	kbScopeResult *r = (kbScopeResult *)ud;
	r->type = type;
	r->msg[0] = 0;
	if (message) {
		strncpy(r->msg, message, sizeof(r->msg) - 1);
		r->msg[sizeof(r->msg) - 1] = 0;
	}
}

static int kb_scopes_available(void) {
	return KB_HAVE(wgpuDevicePushErrorScope) && KB_HAVE(wgpuDevicePopErrorScope);
}

// Buffer mapping with a C callback and C memory for its status: package wgpu passes the
// address of a Go-heap cgo.Handle as the callback's userdata and keeps no reference to it, so
// a garbage collection between MapAsync and the device poll can free it (observed: crashes
// and lost reads after large allocations).
extern void wgpuBufferMapAsync(void *buffer, uint32_t mode, size_t offset, size_t size, void (*cb)(uint32_t, void *), void *userdata) KB_WEAK;

static void kb_map_cb(uint32_t status, void *ud) { *(volatile uint32_t *)ud = status; }

static int kb_map_available(void) { return KB_HAVE(wgpuBufferMapAsync); }

static void kb_map_read(void *buffer, size_t size, uint32_t *status) {
	*status = 0xffffffffu;
	wgpuBufferMapAsync(buffer, 1, 0, size, kb_map_cb, status);
}

static void kb_map_write(void *buffer, size_t size, uint32_t *status) {
	*status = 0xffffffffu;
	wgpuBufferMapAsync(buffer, 2, 0, size, kb_map_cb, status);
}

// Completion markers: the callback of wgpuQueueOnSubmittedWorkDone sets a C flag once all
// work submitted so far is done (package wgpu's wrapper has the handle problem above).
extern void wgpuQueueOnSubmittedWorkDone(void *queue, void (*cb)(uint32_t, void *), void *userdata) KB_WEAK;

static void kb_done_cb(uint32_t status, void *ud) { *(volatile uint32_t *)ud = 1; }

static int kb_done_available(void) { return KB_HAVE(wgpuQueueOnSubmittedWorkDone); }

static uint32_t *kb_on_done(void *queue) {
	uint32_t *flag = (uint32_t *)malloc(4);
	*flag = 0;
	wgpuQueueOnSubmittedWorkDone(queue, kb_done_cb, flag);
	return flag;
}

static uint32_t kb_flag(uint32_t *flag) { return *(volatile uint32_t *)flag; }

static void kb_push(void *dev, uint32_t filter) { wgpuDevicePushErrorScope(dev, filter); }

static uint32_t kb_pop(void *dev, kbScopeResult *r) {
	r->type = 0;
	r->msg[0] = 0;
	wgpuDevicePopErrorScope(dev, kb_scope_cb, r);
	return r->type;
}
*/
import "C"

import (
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// Error filters and types of webgpu.h.
const (
	filterValidation  = 0
	filterOutOfMemory = 1
)

// scopes captures every device error between push and pop: wgpu-native treats errors outside
// any scope as fatal (it aborts the process), so the backend keeps a validation and an out-of-memory scope open
// around all its work and collects them at every Flush, Sync and Read.
type scopes struct {
	dev unsafe.Pointer
	res *C.kbScopeResult
	on  bool
}

func newScopes(d *wgpu.Device) *scopes {
	// wgpu.Device is struct{ ref C.WGPUDevice }: its first word is the device handle.
	s := &scopes{dev: *(*unsafe.Pointer)(unsafe.Pointer(d)), on: C.kb_scopes_available() != 0}
	if s.on {
		s.res = (*C.kbScopeResult)(C.malloc(C.size_t(unsafe.Sizeof(C.kbScopeResult{}))))
	}
	return s
}

// push opens the two scopes.
func (s *scopes) push() {
	if !s.on {
		return
	}
	for _, f := range []uint32{filterValidation, filterOutOfMemory} { // this wgpu-native rejects the internal filter
		C.kb_push(s.dev, C.uint32_t(f))
	}
}

// pop closes the two scopes and returns the first error message with its type
// (0 when none).
func (s *scopes) pop() (typ uint32, msg string) {
	if !s.on {
		return 0, ""
	}
	for range 2 {
		if t := uint32(C.kb_pop(s.dev, s.res)); t != 0 && typ == 0 {
			typ, msg = t, C.GoString(&s.res.msg[0])
		}
	}
	return typ, msg
}

// mapRead starts mapping buf (size bytes) for reading; the returned function reports the
// status once the device has been polled (ok false while pending).
func mapRead(buf *wgpu.Buffer, size uint64) (status func() (wgpu.BufferMapAsyncStatus, bool), err error) {
	if C.kb_map_available() == 0 {
		return mapReadGo(buf, size)
	}
	st := (*C.uint32_t)(C.malloc(4))
	// wgpu.Buffer is struct{ deviceRef, ref }: the buffer handle is its second word.
	ref := (*[2]unsafe.Pointer)(unsafe.Pointer(buf))[1]
	C.kb_map_read(ref, C.size_t(size), st)
	return func() (wgpu.BufferMapAsyncStatus, bool) {
		v := uint32(*st)
		if v == 0xffffffff {
			return 0, false
		}
		C.free(unsafe.Pointer(st))
		return wgpu.BufferMapAsyncStatus(v), true
	}, nil
}

// mapWriteAvailable reports whether mapWrite can remap a buffer (the weight upload's ring of
// staging buffers needs it; without it each piece gets a new buffer mapped at creation).
func mapWriteAvailable() bool { return C.kb_map_available() != 0 }

// mapWrite starts mapping buf (size bytes) for writing once the work using it is done; the
// returned function reports the status once the device has been polled (ok false while
// pending). Only where mapWriteAvailable.
func mapWrite(buf *wgpu.Buffer, size uint64) func() (wgpu.BufferMapAsyncStatus, bool) {
	st := (*C.uint32_t)(C.malloc(4))
	ref := (*[2]unsafe.Pointer)(unsafe.Pointer(buf))[1]
	C.kb_map_write(ref, C.size_t(size), st)
	return func() (wgpu.BufferMapAsyncStatus, bool) {
		v := uint32(*st)
		if v == 0xffffffff {
			return 0, false
		}
		C.free(unsafe.Pointer(st))
		return wgpu.BufferMapAsyncStatus(v), true
	}
}

// marker reports when the work submitted to q so far is done (nil where unavailable).
type marker struct{ flag *C.uint32_t }

func newMarker(q *wgpu.Queue) *marker {
	if C.kb_done_available() == 0 {
		return nil
	}
	// wgpu.Queue is struct{ deviceRef, ref }.
	ref := (*[2]unsafe.Pointer)(unsafe.Pointer(q))[1]
	return &marker{flag: C.kb_on_done(ref)}
}

// done reports whether the marked work is complete.
func (m *marker) done() bool { return C.kb_flag(m.flag) != 0 }

// free releases the marker; only after done (the callback writes its flag).
func (m *marker) free() { C.free(unsafe.Pointer(m.flag)) }

func (s *scopes) free() {
	if s.res != nil {
		C.free(unsafe.Pointer(s.res))
		s.res = nil
	}
}
