package webgpu

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"kleinbild/gpu"
	"kleinbild/internal/safefile"
)

// Device memory. WebGPU does not report how much memory a device has, so the fit check
// takes the number from the platform where it can:
//   - Linux, NVIDIA: NVML (libnvidia-ml.so.1, loaded at run time where the driver is), the
//     device whose PCI IDs match the adapter's.
//   - Linux, AMD (amdgpu): /sys/class/drm/card*/device/mem_info_vram_total of the card
//     whose PCI vendor and device IDs match the adapter's.
//   - Linux, integrated GPUs and software adapters (lavapipe): the host's RAM (/proc/meminfo
//     MemTotal): they allocate from it.
//   - macOS: Metal's recommendedMaxWorkingSetSize of the default device (not compiled or
//     run where this was written).
//   - Linux, Intel discrete, and Windows: unknown (no sysfs entry; DXGI's
//     QueryVideoMemoryInfo is not reachable through wgpu).
//
// Unknown is 0 with the source "unknown"; out-of-memory errors from the device still end
// as an error naming the allocation (scopes, scope.go).

// memorySource names where deviceMemory's number comes from.
const (
	memUnknown   = "unknown"
	memSysfsAMD  = "amdgpu sysfs mem_info_vram_total"
	memNVML      = "NVML"
	memMetal     = "Metal recommended working set"
	memHostRAM   = "host RAM (shared)"
	sysDRMGlob   = "/sys/class/drm/card*/device"
	procMeminfo  = "/proc/meminfo"
	maxSysfsSize = 4096
	vendorNVIDIA = 0x10de
)

// deviceMemory returns the device memory of an adapter (PCI vendor and device IDs, kind) and
// where the number comes from; 0 and "unknown" where the platform does not say.
func deviceMemory(vendor, device uint32, kind gpu.DeviceKind) (int64, string) {
	switch runtime.GOOS {
	case "darwin":
		if n := metalWorkingSet(); n > 0 {
			return n, memMetal
		}
	case "linux":
		return linuxMemory(vendor, device, kind, sysDRMGlob, procMeminfo, nvmlLibrary)
	}
	return 0, memUnknown
}

// linuxMemory is deviceMemory on Linux, reading the given sysfs glob, meminfo file and NVML
// library.
func linuxMemory(vendor, device uint32, kind gpu.DeviceKind, drmGlob, meminfo, nvml string) (int64, string) {
	switch kind {
	case gpu.KindIntegrated, gpu.KindSoftware:
		if n := hostRAM(meminfo); n > 0 {
			return n, memHostRAM
		}
	case gpu.KindDiscrete:
		if vendor == vendorNVIDIA {
			if n := nvmlMemory(nvml, vendor, device); n > 0 {
				return n, memNVML
			}
		}
		if n := sysfsVRAM(drmGlob, vendor, device); n > 0 {
			return n, memSysfsAMD
		}
	}
	return 0, memUnknown
}

// sysfsVRAM looks for the DRM card with the given PCI IDs under glob and returns its
// mem_info_vram_total (amdgpu only), 0 if none.
func sysfsVRAM(glob string, vendor, device uint32) int64 {
	dirs, _ := filepath.Glob(glob)
	for _, d := range dirs {
		v, okv := readHex(filepath.Join(d, "vendor"))
		id, okd := readHex(filepath.Join(d, "device"))
		if !okv || !okd || v != vendor || id != device {
			continue
		}
		if n, ok := readInt(filepath.Join(d, "mem_info_vram_total")); ok && n > 0 {
			return n
		}
	}
	return 0
}

// readSmall reads a sysfs attribute (a regular file of at most maxSysfsSize bytes).
func readSmall(path string) (string, bool) {
	raw, err := safefile.ReadRegular(path, maxSysfsSize)
	if err != nil {
		return "", false
	}
	s := strings.TrimSpace(string(raw))
	return s, s != ""
}

func readHex(path string) (uint32, bool) {
	s, ok := readSmall(path)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 32)
	return uint32(v), err == nil
}

func readInt(path string) (int64, bool) {
	s, ok := readSmall(path)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// hostRAM reads MemTotal from a meminfo file (0 if unreadable).
func hostRAM(path string) int64 {
	raw, err := safefile.ReadRegular(path, 1<<20)
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscan(rest, &kb); err == nil && kb > 0 {
				return kb << 10
			}
		}
	}
	return 0
}
