package backends

import (
	"strings"
	"testing"

	"kleinbild/gpu"
)

// TestVulkanNeverDefault: a Vulkan device is never the default on its own: the default rule
// passes over it even when it is the only discrete GPU (it reaches one only through its
// card's WebGPU adapter and a measurement, TestAutoIDVulkan), and with no measurement in
// the cache no Vulkan device is the default.
func TestVulkanNeverDefault(t *testing.T) {
	ds := []Device{
		{ID: "purego", Backend: "purego", Info: gpu.DeviceInfo{Kind: gpu.KindCPU}},
		{ID: "vulkan:0", Backend: "vulkan", Info: gpu.DeviceInfo{Kind: gpu.KindDiscrete, API: "Vulkan"}},
	}
	if got := autoID(ds); got != "purego" {
		t.Errorf("autoID = %q, want purego", got)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(EnvBackend, "")
	for _, d := range Devices() {
		if d.Backend == "vulkan" && d.Auto {
			t.Errorf("%s is the default", d.ID)
		}
	}
}

// TestOpenVulkanBadIndex: malformed or missing device indices fail with a message naming
// vulkan, without panicking.
func TestOpenVulkanBadIndex(t *testing.T) {
	for _, id := range []string{"vulkan:x", "vulkan:-1", "vulkan:999", "vulkan:"} {
		b, err := Open(id)
		if err == nil {
			b.Close()
			t.Errorf("Open(%q) succeeded", id)
		} else if !strings.Contains(err.Error(), "vulkan") {
			t.Errorf("Open(%q): %v does not name vulkan", id, err)
		}
	}
}
