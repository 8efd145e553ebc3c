//go:build linux && cgo

package onednn

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// The few oneDNN entry points used, called through pointers found with dlsym so that the
// binary has no link-time dependency on oneDNN. dnnl_gemm_bf16bf16f32 is exported by
// libdnnl (1.x to 3.x) though its declaration is not in the public headers; its signature is
// that of dnnl_sgemm with bfloat16 A and B (row-major, status 0 on success).
typedef int (*gemm_bf16_fn)(char, char, int64_t, int64_t, int64_t, float, const uint16_t *,
		int64_t, const uint16_t *, int64_t, float, float *, int64_t);
typedef int (*isa_fn)(void);
typedef struct { int major, minor, patch; const char *hash; unsigned cpu_runtime, gpu_runtime; } dnnl_version_t;
typedef const dnnl_version_t *(*version_fn)(void);

typedef struct {
	void *lib;
	gemm_bf16_fn gemm_bf16;
	isa_fn effective_isa;
	version_fn version;
} dnnl_api;

// dnnl_load opens name and resolves the entry points; on failure it returns NULL with the
// reason copied into err (dlerror's text lives in thread-local storage).
static dnnl_api *dnnl_load(const char *name, char *err, size_t errlen) {
	void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		return NULL;
	}
	dnnl_api *api = calloc(1, sizeof *api);
	api->lib = lib;
	api->gemm_bf16 = (gemm_bf16_fn)dlsym(lib, "dnnl_gemm_bf16bf16f32");
	api->effective_isa = (isa_fn)dlsym(lib, "dnnl_get_effective_cpu_isa");
	api->version = (version_fn)dlsym(lib, "dnnl_version");
	if (!api->gemm_bf16 || !api->effective_isa || !api->version) {
		snprintf(err, errlen, "missing dnnl_gemm_bf16bf16f32, dnnl_get_effective_cpu_isa or dnnl_version");
		dlclose(lib);
		free(api);
		return NULL;
	}
	return api;
}

static int dnnl_isa(dnnl_api *api) { return api->effective_isa(); }

static void dnnl_ver(dnnl_api *api, int *major, int *minor, int *patch) {
	const dnnl_version_t *v = api->version();
	*major = v->major; *minor = v->minor; *patch = v->patch;
}

// dnnl_gemm_nt: C[m,n] = A[m,k]·B[n,k]ᵀ, row-major bf16 operands, f32 result with rows ldc apart.
static int dnnl_gemm_nt(dnnl_api *api, int64_t m, int64_t n, int64_t k, const uint16_t *a,
		const uint16_t *b, float *c, int64_t ldc) {
	return api->gemm_bf16('N', 'T', m, n, k, 1.0f, a, k, b, k, 0.0f, c, ldc);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// libName is the oneDNN shared library looked up at run time (Debian's libdnnl2).
const libName = "libdnnl.so.2"

// oneDNN's dnnl_cpu_isa_t bits: avx512_core_bf16 (0xe7) and avx512_core_amx (0x3e7) are
// supersets of each other's lower bits.
const (
	isaAVX512BF16 = 0xe7
	isaAMX        = 0x3e7
)

// library is the loaded oneDNN plus the OS thread all its calls run on: OpenMP (GNU libgomp)
// keeps one thread pool per calling OS thread, and Go moves goroutines between OS threads, so
// calling from arbitrary threads would start a pool (with spinning threads) on each.
type library struct {
	api     *C.dnnl_api
	isa     int
	version string
	calls   chan gemmCall
}

type gemmCall struct {
	m, n, k int
	ldc     int
	a, b    *uint16
	c       *float32
	done    chan C.int
}

// load opens oneDNN and starts its calling thread, or explains why it cannot be used.
func load() (*library, error) { return loadNamed(libName) }

// loadNamed loads the oneDNN shared library libName (a name for dlopen or a path).
func loadNamed(libName string) (*library, error) {
	name := C.CString(libName)
	defer C.free(unsafe.Pointer(name))
	var cerr [512]C.char
	api := C.dnnl_load(name, &cerr[0], C.size_t(len(cerr)))
	if api == nil {
		return nil, fmt.Errorf("onednn: load %s: %s", libName, C.GoString(&cerr[0]))
	}
	var major, minor, patch C.int
	C.dnnl_ver(api, &major, &minor, &patch)
	l := &library{
		api:     api,
		isa:     int(C.dnnl_isa(api)),
		version: fmt.Sprintf("%d.%d.%d", major, minor, patch),
		calls:   make(chan gemmCall),
	}
	if l.isa&isaAVX512BF16 != isaAVX512BF16 {
		C.free(unsafe.Pointer(api)) // the library stays loaded; it is not used
		return nil, fmt.Errorf("onednn: %s %s: CPU has no native bf16 (effective ISA %#x; needs avx512_core_bf16 or amx)", libName, l.version, l.isa)
	}
	go l.serve()
	return l, nil
}

// serve runs every oneDNN call of the process on one locked OS thread. It lives as long as the
// process, like the loaded library.
func (l *library) serve() {
	runtime.LockOSThread()
	for c := range l.calls {
		c.done <- C.dnnl_gemm_nt(l.api, C.int64_t(c.m), C.int64_t(c.n), C.int64_t(c.k),
			(*C.uint16_t)(unsafe.Pointer(c.a)), (*C.uint16_t)(unsafe.Pointer(c.b)), (*C.float)(unsafe.Pointer(c.c)), C.int64_t(c.ldc))
	}
}

// gemmNT computes c[m,n] = a[m,k]·b[n,k]ᵀ (bf16 operands, f32 result, rows of c ldc apart);
// the caller checks the lengths. It returns oneDNN's status (0 on success).
func (l *library) gemmNT(m, n, k int, a, b []uint16, c []float32, ldc int) int {
	done := make(chan C.int, 1)
	l.calls <- gemmCall{m: m, n: n, k: k, ldc: ldc, a: &a[0], b: &b[0], c: &c[0], done: done}
	st := <-done
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	return int(st)
}

func (l *library) amx() bool { return l.isa&isaAMX == isaAMX }
