package webgpu

import (
	"path/filepath"
	"testing"

	"kleinbild/gpu"
)

// TestAdapterName: an adapter named by its bare PCI ID (the H200 as "0x2335") gets the
// table's name; real names stay; unknown IDs name the vendor and the ID.
func TestAdapterName(t *testing.T) {
	for _, c := range []struct {
		name, driver   string
		vendor, device uint32
		want           string
	}{
		{"0x2335", "580.159.04", 0x10de, 0x2335, "NVIDIA H200"},
		{"0x2330", "", 0x10de, 0x2330, "NVIDIA H100 SXM"},
		{"", "", 0x10de, 0x2684, "NVIDIA GeForce RTX 4090"},
		{"NVIDIA GeForce RTX 4090", "", 0x10de, 0x2684, "NVIDIA GeForce RTX 4090"},
		{"llvmpipe (LLVM 15.0.6, 256 bits)", "Mesa 22.3.6", 0x10005, 0, "llvmpipe (LLVM 15.0.6, 256 bits)"},
		{"0x0", "Apple M2 driver", 0x106b, 0, "Apple M2 driver"},
		{"0x9999", "580.159.04", 0x10de, 0x9999, "NVIDIA GPU 0x9999"},
		{"0x1234", "", 0x1af4, 0x1234, "PCI 0x1af4 GPU 0x1234"},
	} {
		if got := adapterName(c.name, c.driver, c.vendor, c.device); got != c.want {
			t.Errorf("adapterName(%q, %q, %04x:%04x) = %q, want %q", c.name, c.driver, c.vendor, c.device, got, c.want)
		}
	}
}

// TestLinuxMemoryNVMLAbsent: a discrete NVIDIA adapter without NVML (library missing) is
// unknown, not an error or a crash; an AMD card still reads sysfs.
func TestLinuxMemoryNVMLAbsent(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libnvidia-ml.so.1")
	if n := nvmlMemory(missing, vendorNVIDIA, 0x2335); n != 0 {
		t.Errorf("nvmlMemory without the library: %d", n)
	}
	if n := nvmlMemory("libc.so.6", vendorNVIDIA, 0x2335); n != 0 { // a library without NVML's symbols
		t.Errorf("nvmlMemory from libc: %d", n)
	}
	glob := filepath.Join(t.TempDir(), "card*", "device")
	if n, src := linuxMemory(vendorNVIDIA, 0x2335, gpu.KindDiscrete, glob, "/nonexistent", missing); n != 0 || src != memUnknown {
		t.Errorf("NVIDIA without NVML: %d from %q", n, src)
	}
}
