package webgpu

import (
	"fmt"
	"strings"
)

// pciNames are marketing names of common GPUs by PCI vendor and device ID, for adapters
// whose driver names them only by the ID (NVIDIA's Vulkan driver through wgpu reports an
// H200 as "0x2335"). Cards missing here show as "NVIDIA GPU 0x…".
var pciNames = map[uint32]map[uint32]string{
	vendorNVIDIA: {
		0x2335: "NVIDIA H200", 0x2330: "NVIDIA H100 SXM", 0x2331: "NVIDIA H100 PCIe", 0x2321: "NVIDIA H100 NVL",
		0x26b9: "NVIDIA L40S", 0x26b5: "NVIDIA L40", 0x27b8: "NVIDIA L4", 0x1eb8: "NVIDIA Tesla T4",
		0x20b0: "NVIDIA A100 SXM4 40GB", 0x20b2: "NVIDIA A100 SXM4 80GB", 0x20b5: "NVIDIA A100 PCIe 80GB",
		0x20f1: "NVIDIA A100 PCIe 40GB", 0x20b7: "NVIDIA A30", 0x2236: "NVIDIA A10",
		0x1db1: "NVIDIA Tesla V100 SXM2 16GB", 0x1db4: "NVIDIA Tesla V100 PCIe 16GB",
		0x2230: "NVIDIA RTX A6000", 0x26b1: "NVIDIA RTX 6000 Ada Generation",
		0x2b85: "NVIDIA GeForce RTX 5090", 0x2c02: "NVIDIA GeForce RTX 5080",
		0x2684: "NVIDIA GeForce RTX 4090", 0x2704: "NVIDIA GeForce RTX 4080", 0x2782: "NVIDIA GeForce RTX 4070 Ti",
		0x2786: "NVIDIA GeForce RTX 4070", 0x2803: "NVIDIA GeForce RTX 4060 Ti", 0x2882: "NVIDIA GeForce RTX 4060",
		0x2203: "NVIDIA GeForce RTX 3090 Ti", 0x2204: "NVIDIA GeForce RTX 3090", 0x2206: "NVIDIA GeForce RTX 3080",
		0x2484: "NVIDIA GeForce RTX 3070", 0x2503: "NVIDIA GeForce RTX 3060",
		0x1e04: "NVIDIA GeForce RTX 2080 Ti", 0x1e07: "NVIDIA GeForce RTX 2080 Ti",
	},
	0x1002: {
		0x744c: "AMD Radeon RX 7900 XT/XTX", 0x73bf: "AMD Radeon RX 6800/6900 XT", 0x73df: "AMD Radeon RX 6700 XT",
		0x738c: "AMD Instinct MI100", 0x740f: "AMD Instinct MI210", 0x74a1: "AMD Instinct MI300X",
	},
	0x8086: {
		0x56a0: "Intel Arc A770", 0x56a1: "Intel Arc A750", 0x5690: "Intel Arc A770M",
		0xe20b: "Intel Arc B580", 0xe20c: "Intel Arc B570",
	},
}

var vendorNames = map[uint32]string{vendorNVIDIA: "NVIDIA", 0x1002: "AMD", 0x8086: "Intel"}

// adapterName names an adapter from the best source: the adapter's name unless it is a bare
// PCI ID ("0x2335"), else the PCI table, else the driver's description unless bare too, else
// "VENDOR GPU 0x2335".
func adapterName(name, driver string, vendor, device uint32) string {
	name, driver = strings.TrimSpace(name), strings.TrimSpace(driver)
	if !bareID(name) {
		return name
	}
	if n, ok := pciNames[vendor][device]; ok {
		return n
	}
	if !bareID(driver) && !looksLikeVersion(driver) {
		return driver
	}
	v, ok := vendorNames[vendor]
	if !ok {
		v = fmt.Sprintf("PCI 0x%04x", vendor)
	}
	return fmt.Sprintf("%s GPU 0x%04x", v, device)
}

// bareID reports whether s names nothing: empty, or a number ("0x2335", "8965").
func bareID(s string) bool {
	t := strings.TrimPrefix(strings.ToLower(s), "0x")
	if t == "" {
		return true
	}
	for _, r := range t {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// looksLikeVersion reports whether s is a driver version ("580.159.04"), not a name.
func looksLikeVersion(s string) bool {
	return s != "" && strings.Trim(s, "0123456789.") == ""
}
