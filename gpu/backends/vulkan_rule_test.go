package backends

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/vulkan"
	"kleinbild/gpu/webgpu"
)

// fakeRecord is a record of webgpu and vulkan seconds per workload, current for key.
func fakeRecord(key recordKey, relL2 float64, times ...[2]float64) *VulkanRecord {
	r := &VulkanRecord{Version: vulkanRecordVersion, Adapter: key.Adapter, Vulkan: key.Vulkan,
		VulkanKernels: key.VulkanKernels, WebGPUKernels: key.WebGPUKernels, RelL2: relL2}
	for _, t := range times {
		r.Work = append(r.Work, WorkTime{Name: "w", WebGPU: t[0], Vulkan: t[1]})
	}
	return r
}

// TestVulkanVerdict: the rule on fake measurements. Vulkan is the card's default only with a
// current record (same adapter, Vulkan driver and kernels of both backends) whose outputs
// agree and whose total time beats WebGPU's by the margin; every other case keeps WebGPU and
// says why.
func TestVulkanVerdict(t *testing.T) {
	key := recordKey{Adapter: "10de:2335|...", Vulkan: "10de:2335|H200|driver 1|api 2", VulkanKernels: "vk1", WebGPUKernels: "wg1"}
	other := func(f func(*recordKey)) recordKey { k := key; f(&k); return k }
	faster := [][2]float64{{0.010, 0.004}, {0.002, 0.003}} // 12 ms against 7 ms
	for _, c := range []struct {
		name string
		st   vulkanState
		use  bool
		why  string
	}{
		{"no Vulkan device", vulkanState{Record: fakeRecord(key, 0, faster...), Key: key}, false, "no Vulkan device"},
		{"not measured", vulkanState{VulkanID: "vulkan:0", Key: key}, false, "not measured"},
		{"faster", vulkanState{"vulkan:0", fakeRecord(key, 1e-6, faster...), key}, true, "measured faster: 7 ms against WebGPU's 12 ms"},
		{"slower", vulkanState{"vulkan:0", fakeRecord(key, 0, [2]float64{0.004, 0.010}), key}, false, "no faster"},
		{"equal", vulkanState{"vulkan:0", fakeRecord(key, 0, [2]float64{0.010, 0.010}), key}, false, "no faster"},
		{"within the margin", vulkanState{"vulkan:0", fakeRecord(key, 0, [2]float64{0.0100, 0.0096}), key}, false, "no faster"},
		{"beyond the margin", vulkanState{"vulkan:0", fakeRecord(key, 0, [2]float64{0.0100, 0.0094}), key}, true, "faster"},
		{"outputs differ", vulkanState{"vulkan:0", fakeRecord(key, 0.3, faster...), key}, false, "differed"},
		{"NaN difference", vulkanState{"vulkan:0", fakeRecord(key, math.NaN(), faster...), key}, false, "differed"},
		{"no times", vulkanState{"vulkan:0", fakeRecord(key, 0), key}, false, "not measured"},
		{"zero Vulkan time", vulkanState{"vulkan:0", fakeRecord(key, 0, [2]float64{0.01, 0}), key}, false, "not measured"},
		{"other driver", vulkanState{"vulkan:0", fakeRecord(key, 0, faster...), other(func(k *recordKey) { k.Vulkan = "10de:2335|H200|driver 2|api 2" })}, false, "out of date"},
		{"other adapter", vulkanState{"vulkan:0", fakeRecord(key, 0, faster...), other(func(k *recordKey) { k.Adapter = "x" })}, false, "out of date"},
		{"Vulkan kernels changed", vulkanState{"vulkan:0", fakeRecord(key, 0, faster...), other(func(k *recordKey) { k.VulkanKernels = "vk2" })}, false, "out of date"},
		{"WebGPU retuned", vulkanState{"vulkan:0", fakeRecord(key, 0, faster...), other(func(k *recordKey) { k.WebGPUKernels = "wg2" })}, false, "out of date"},
		{"WebGPU tuning not current", vulkanState{"vulkan:0", fakeRecord(other(func(k *recordKey) { k.WebGPUKernels = "" }), 0, faster...),
			other(func(k *recordKey) { k.WebGPUKernels = "" })}, false, "out of date"},
	} {
		use, why := vulkanVerdict(c.st)
		if use != c.use || !strings.Contains(why, c.why) {
			t.Errorf("%s: (%v, %q), want (%v, …%q…)", c.name, use, why, c.use, c.why)
		}
	}
}

// TestAutoIDVulkan: the automatic default takes a card's Vulkan device only through the
// card's WebGPU entry (DefaultUses), and only where the card is the default at all: not for a
// software adapter, nor for a GPU measured slower than the CPU.
func TestAutoIDVulkan(t *testing.T) {
	cpu := Device{ID: "openblas", Backend: "openblas", Info: gpu.DeviceInfo{Kind: gpu.KindCPU}}
	card := func(kind gpu.DeviceKind, uses string, g, c float64) Device {
		return Device{ID: "webgpu:0", Backend: "webgpu", Info: gpu.DeviceInfo{Kind: kind}, DefaultUses: uses, GFLOPS: g, CPUGFLOPS: c}
	}
	vk := Device{ID: "vulkan:0", Backend: "vulkan", Info: gpu.DeviceInfo{Kind: gpu.KindDiscrete}}
	for _, c := range []struct {
		name string
		ds   []Device
		want string
	}{
		{"measured faster", []Device{cpu, card(gpu.KindDiscrete, "vulkan:0", 0, 0), vk}, "vulkan:0"},
		{"not measured", []Device{cpu, card(gpu.KindDiscrete, "webgpu:0", 0, 0), vk}, "webgpu:0"},
		{"no entry", []Device{cpu, card(gpu.KindDiscrete, "", 0, 0), vk}, "webgpu:0"},
		{"software", []Device{cpu, card(gpu.KindSoftware, "vulkan:0", 0, 0), vk}, "openblas"},
		{"GPU slower than the CPU", []Device{cpu, card(gpu.KindIntegrated, "vulkan:0", 100, 300), vk}, "openblas"},
	} {
		if got := autoID(c.ds); got != c.want {
			t.Errorf("%s: autoID = %s, want %s", c.name, got, c.want)
		}
	}
}

// TestPairVulkan: an adapter pairs with the Vulkan device of its PCI identifiers; of
// identical cards, the k-th adapter of an API with the k-th device; none without a match.
func TestPairVulkan(t *testing.T) {
	ad := func(api string, vendor, device uint32) webgpu.Adapter {
		return webgpu.Adapter{Info: gpu.DeviceInfo{API: api}, VendorID: vendor, DeviceID: device}
	}
	ads := []webgpu.Adapter{ad("Vulkan", 0x10de, 0x2335), ad("Vulkan", 0x10de, 0x2335), ad("D3D12", 0x10de, 0x2335),
		ad("Vulkan", 0x1002, 0x744c), ad("Vulkan", 0x8086, 0x56a0)}
	vks := []vulkan.Identity{{VendorID: 0x1002, DeviceID: 0x744c}, {VendorID: 0x10de, DeviceID: 0x2335}, {VendorID: 0x10de, DeviceID: 0x2335}}
	for i, want := range []int{1, 2, 1, 0, -1} {
		if got := pairVulkan(i, ads, vks); got != want {
			t.Errorf("adapter %d: pairVulkan = %d, want %d", i, got, want)
		}
	}
	if got := pairVulkan(9, ads, vks); got != -1 {
		t.Errorf("index out of range: %d", got)
	}
	if got := pairVulkan(0, ads, nil); got != -1 {
		t.Errorf("no Vulkan devices: %d", got)
	}
}

// TestTuningFingerprint: the fingerprint changes with any family's variant or source hash,
// not with the order of the map, and is "" without a cache.
func TestTuningFingerprint(t *testing.T) {
	c := &webgpu.TuneCache{Families: map[string]webgpu.CachedFamily{"linear": {Hash: "h1", Variant: "a"}, "attention": {Hash: "h2", Variant: "b"}}}
	f := tuningFingerprint(c)
	if f == "" || tuningFingerprint(nil) != "" {
		t.Fatalf("fingerprint %q, of nil %q", f, tuningFingerprint(nil))
	}
	c2 := &webgpu.TuneCache{Families: map[string]webgpu.CachedFamily{"attention": {Hash: "h2", Variant: "b"}, "linear": {Hash: "h1", Variant: "a"}}}
	if tuningFingerprint(c2) != f {
		t.Error("fingerprint depends on map order")
	}
	c2.Families["linear"] = webgpu.CachedFamily{Hash: "h1", Variant: "c"}
	if tuningFingerprint(c2) == f {
		t.Error("fingerprint unchanged by a new variant")
	}
	c2.Families["linear"] = webgpu.CachedFamily{Hash: "h3", Variant: "a"}
	if tuningFingerprint(c2) == f {
		t.Error("fingerprint unchanged by new sources")
	}
}

// TestVulkanRecordFile: a record survives the round trip through its file; a file of another
// adapter, another version, garbage or implausible times reads as no record.
func TestVulkanRecordFile(t *testing.T) {
	dir := t.TempDir()
	key := recordKey{Adapter: "a|1", Vulkan: "v", VulkanKernels: "k", WebGPUKernels: "w"}
	r := fakeRecord(key, 1e-7, [2]float64{0.01, 0.005})
	if err := saveVulkanRecord(dir, r); err != nil {
		t.Fatal(err)
	}
	got := loadVulkanRecord(dir, "a|1")
	if got == nil || got.key() != key || len(got.Work) != 1 || got.Work[0] != r.Work[0] || got.RelL2 != r.RelL2 {
		t.Fatalf("loaded %+v, want %+v", got, r)
	}
	if loadVulkanRecord(dir, "a|2") != nil || loadVulkanRecord(dir, "") != nil {
		t.Error("a record for another adapter")
	}
	path, err := vulkanRecordPath(dir, "a|1")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "{", `{"version":2,"adapter":"a|1"}`, `{"version":1,"adapter":"b"}`,
		`{"version":1,"adapter":"a|1","work":[{"webgpu_seconds":-1,"vulkan_seconds":1}]}`,
		`{"version":1,"adapter":"a|1","work":[{"webgpu_seconds":1,"vulkan_seconds":1e300}]}`} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := loadVulkanRecord(dir, "a|1"); r != nil {
			t.Errorf("%q read as %+v", bad, r)
		}
	}
	if filepath.Dir(path) != dir {
		t.Errorf("record at %s, not in %s", path, dir)
	}
}

// FuzzVulkanRecord: parsing a record file never panics, and what it accepts has plausible
// times.
func FuzzVulkanRecord(f *testing.F) {
	f.Add([]byte(`{"version":1,"adapter":"a","work":[{"name":"w","webgpu_seconds":0.01,"vulkan_seconds":0.005}],"rel_l2":1e-7}`))
	f.Add([]byte(`{"version":1,"adapter":"a","work":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := parseVulkanRecord(raw, "a")
		if err != nil {
			return
		}
		w, v := r.Totals()
		if math.IsNaN(w) || math.IsNaN(v) || w < 0 || v < 0 {
			t.Errorf("accepted totals %v, %v", w, v)
		}
		vulkanVerdict(vulkanState{VulkanID: "vulkan:0", Record: r, Key: r.key()})
	})
}
