//go:build linux && cgo

package webgpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

// NVML's structures (nvml.h): nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it, and
// nvmlMemory_t. pciDeviceId is (device ID << 16) | vendor ID.
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} kbNvmlPci;
typedef struct {
	unsigned long long total, free, used;
} kbNvmlMemory;

// kb_nvml_total returns the memory of the first NVIDIA device whose PCI ID is pci_id, 0 when
// none matches, -1 when NVML cannot be loaded or fails. NVML is opened and closed per call.
static long long kb_nvml_total(const char *lib, unsigned int pci_id) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		return -1;
	}
	int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
	int (*shutdown)(void) = (int (*)(void))dlsym(h, "nvmlShutdown");
	int (*count)(unsigned int *) = (int (*)(unsigned int *))dlsym(h, "nvmlDeviceGetCount_v2");
	int (*handle)(unsigned int, void **) = (int (*)(unsigned int, void **))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	int (*pci)(void *, kbNvmlPci *) = (int (*)(void *, kbNvmlPci *))dlsym(h, "nvmlDeviceGetPciInfo_v3");
	int (*mem)(void *, kbNvmlMemory *) = (int (*)(void *, kbNvmlMemory *))dlsym(h, "nvmlDeviceGetMemoryInfo");
	long long total = -1;
	if (init && shutdown && count && handle && pci && mem && init() == 0) {
		unsigned int n = 0;
		total = 0;
		if (count(&n) == 0) {
			for (unsigned int i = 0; i < n && total == 0; i++) {
				void *d = NULL;
				kbNvmlPci p;
				kbNvmlMemory m;
				if (handle(i, &d) == 0 && pci(d, &p) == 0 && p.pciDeviceId == pci_id && mem(d, &m) == 0) {
					total = (long long)m.total;
				}
			}
		}
		shutdown();
	}
	dlclose(h);
	return total;
}
*/
import "C"

import "unsafe"

// nvmlLibrary is the NVIDIA driver's management library, present wherever its driver is.
const nvmlLibrary = "libnvidia-ml.so.1"

// nvmlMemory returns the memory of the NVIDIA device with PCI IDs vendor:device, loading the
// NVML library lib at run time (no build dependency); 0 where it is absent, fails or knows
// no such device.
func nvmlMemory(lib string, vendor, device uint32) int64 {
	cs := C.CString(lib)
	defer C.free(unsafe.Pointer(cs))
	n := int64(C.kb_nvml_total(cs, C.uint(device<<16|vendor)))
	return max(n, 0)
}
