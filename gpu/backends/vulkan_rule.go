package backends

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sort"

	"kleinbild/gpu/vulkan"
	"kleinbild/gpu/webgpu"
)

// The Vulkan backend becomes the automatic default of a card only where `kleinbild tune` has
// measured it faster than WebGPU on that card (CompareVulkan): both run the same model-shaped
// work, and the record of the result (VulkanRecord, in the tuning cache folder) is keyed on
// the WebGPU adapter, the Vulkan device and driver, and both backends' kernels. Without a
// current record WebGPU stays the default. The Vulkan device opens in its exact precision:
// the fast one (matrix units) is never a default.

// vulkanMargin is how much faster Vulkan must be: its total time times vulkanMargin stays
// under WebGPU's, so that timing noise between two equal backends keeps WebGPU.
const vulkanMargin = 1.05

// vulkanTolerance is the largest rel-L2 difference between the two backends' outputs on the
// compared work (both float32: summation order only).
const vulkanTolerance = webgpu.TuneTolerance

// vulkanState is the measurement the default rule found for a card.
type vulkanState struct {
	VulkanID string        // "vulkan:M", the card's Vulkan device ("": none)
	Record   *VulkanRecord // nil: not measured
	Key      recordKey     // what a current record must match
}

// recordKey is what a record is valid for: the adapter, the Vulkan device and driver, and the
// kernels of both backends.
type recordKey struct {
	Adapter, Vulkan, VulkanKernels, WebGPUKernels string
}

// key is the record's recordKey.
func (r *VulkanRecord) key() recordKey {
	return recordKey{Adapter: r.Adapter, Vulkan: r.Vulkan, VulkanKernels: r.VulkanKernels, WebGPUKernels: r.WebGPUKernels}
}

// vulkanVerdict is the default-device rule between WebGPU and Vulkan on one card: use says
// whether the automatic default opens the Vulkan device, why says on what grounds.
func vulkanVerdict(s vulkanState) (use bool, why string) {
	r := s.Record
	switch {
	case s.VulkanID == "":
		return false, "no Vulkan device for this card"
	case r == nil:
		return false, "Vulkan not measured on this card ('kleinbild tune' times both)"
	case r.key() != s.Key || s.Key.WebGPUKernels == "" || s.Key.VulkanKernels == "":
		return false, "Vulkan's measurement is out of date (driver, tuning or kernels changed; 'kleinbild tune' measures again)"
	}
	return timeVerdict(r)
}

// timeVerdict is vulkanVerdict on the record's outputs and times alone.
func timeVerdict(r *VulkanRecord) (use bool, why string) {
	if !(r.RelL2 <= vulkanTolerance) {
		return false, fmt.Sprintf("Vulkan's output differed from WebGPU's (rel-L2 %.2g): not used", r.RelL2)
	}
	w, v := r.Totals()
	switch {
	case !(w > 0) || !(v > 0) || math.IsInf(w, 0) || math.IsInf(v, 0):
		return false, "Vulkan not measured on this card ('kleinbild tune' times both)"
	case v*vulkanMargin < w:
		return true, fmt.Sprintf("Vulkan measured faster: %.3g ms against WebGPU's %.3g ms on the model's work", v*1e3, w*1e3)
	}
	return false, fmt.Sprintf("Vulkan measured no faster: %.3g ms against WebGPU's %.3g ms on the model's work", v*1e3, w*1e3)
}

// pairVulkan returns the index in vks of the Vulkan device of the card of adapter ads[i], -1
// for none: the devices with the adapter's PCI identifiers, the k-th for the adapter that is
// the k-th of its API with those identifiers (identical cards enumerate in the same order).
func pairVulkan(i int, ads []webgpu.Adapter, vks []vulkan.Identity) int {
	if i < 0 || i >= len(ads) {
		return -1
	}
	a := ads[i]
	k := 0
	for _, o := range ads[:i] {
		if o.VendorID == a.VendorID && o.DeviceID == a.DeviceID && o.Info.API == a.Info.API {
			k++
		}
	}
	for j, v := range vks {
		if v.VendorID == a.VendorID && v.DeviceID == a.DeviceID {
			if k == 0 {
				return j
			}
			k--
		}
	}
	return -1
}

// tuningFingerprint identifies the WebGPU kernels a tuning cache chose (each family's source
// hash and variant): "" without a cache.
func tuningFingerprint(c *webgpu.TuneCache) string {
	if c == nil {
		return ""
	}
	fams := make([]string, 0, len(c.Families))
	for f := range c.Families {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	h := sha256.New()
	for _, f := range fams {
		e := c.Families[f]
		fmt.Fprintf(h, "%q %q %q\n", f, e.Hash, e.Variant)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// vulkanStates finds each adapter's Vulkan device and measurement. Vulkan's device list is
// read only when pairAll is set or some adapter has a record (the default rule then costs
// nothing on a machine that never compared the two).
func vulkanStates(ads []webgpu.Adapter, pairAll bool) []vulkanState {
	st := make([]vulkanState, len(ads))
	some := false
	for i, a := range ads {
		st[i].Record = loadVulkanRecord("", a.Key())
		some = some || st[i].Record != nil
	}
	if !vulkan.Compiled || (!pairAll && !some) {
		return st
	}
	vks, err := vulkan.Identities()
	if err != nil {
		return st
	}
	kernels := vulkan.KernelHash()
	for i, a := range ads {
		m := pairVulkan(i, ads, vks)
		if m < 0 {
			continue
		}
		st[i].VulkanID = fmt.Sprintf("vulkan:%d", m)
		st[i].Key = recordKey{Adapter: a.Key(), Vulkan: vks[m].Key(), VulkanKernels: kernels, WebGPUKernels: currentTuning(a)}
	}
	return st
}

// currentTuning is the fingerprint of adapter a's tuning when it is current, else "".
func currentTuning(a webgpu.Adapter) string {
	if !webgpu.TuningCurrent(a) {
		return ""
	}
	return tuningFingerprint(webgpu.CachedTuning(a, "", false))
}

// vulkanIndex is the M of "vulkan:M" (-1 for anything else).
func vulkanIndex(id string) int {
	var m int
	if _, err := fmt.Sscanf(id, "vulkan:%d", &m); err != nil || m < 0 {
		return -1
	}
	return m
}
