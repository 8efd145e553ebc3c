//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"sort"
)

// Offsets in VkPhysicalDeviceProperties of the identity fields.
const (
	offAPIVersion    = 0
	offDriverVersion = 4
	offVendorID      = 8
	offDeviceID      = 12
)

// Identities lists the identity of each device of Devices(), in the same order (an error when
// Vulkan does not load). Caches of measurements key on it.
func Identities() ([]Identity, error) {
	return eachDevice(func(f *vk, _ uintptr, pd physical) Identity { return identify(f, pd) })
}

// identify reads pd's identity from its properties.
func identify(f *vk, pd physical) Identity {
	var ps pins
	defer ps.p.Unpin()
	props := new([propsSize]byte)
	vkcall(f.getPhysicalDeviceProperties, pd.handle, ptr(&ps, props))
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(props[off:]) }
	return Identity{Name: pd.info.Name, Kind: pd.info.Kind, VendorID: u32(offVendorID), DeviceID: u32(offDeviceID),
		DriverVersion: u32(offDriverVersion), APIVersion: u32(offAPIVersion)}
}

// KernelHash is a digest of the embedded SPIR-V of every kernel: a measurement of this
// backend is current while it is unchanged.
func KernelHash() string {
	names, err := fs.Glob(spirv, "shaders/*.spv")
	if err != nil {
		return ""
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		raw, err := spirv.ReadFile(n)
		if err != nil {
			return ""
		}
		var l [8]byte
		binary.LittleEndian.PutUint64(l[:], uint64(len(raw)))
		h.Write([]byte(n))
		h.Write(l[:])
		h.Write(raw)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
