package engine

import (
	"testing"

	"kleinbild/gpu"
)

// TestResidentOnDevice: klein-4B's 16 GB of weights stay together on an H200 (141 GB) but
// not on a 16 GB card, a card of unknown memory, or an integrated or software adapter.
func TestResidentOnDevice(t *testing.T) {
	const klein4B = 16e9
	for _, c := range []struct {
		info gpu.DeviceInfo
		want bool
	}{
		{gpu.DeviceInfo{Kind: gpu.KindDiscrete, MemoryBytes: 150e9}, true},
		{gpu.DeviceInfo{Kind: gpu.KindDiscrete, MemoryBytes: 25.7e9}, true},
		{gpu.DeviceInfo{Kind: gpu.KindDiscrete, MemoryBytes: 24e9}, false},
		{gpu.DeviceInfo{Kind: gpu.KindDiscrete, MemoryBytes: 16e9}, false},
		{gpu.DeviceInfo{Kind: gpu.KindDiscrete}, false},
		{gpu.DeviceInfo{Kind: gpu.KindIntegrated, MemoryBytes: 128e9}, false},
		{gpu.DeviceInfo{Kind: gpu.KindSoftware, MemoryBytes: 128e9}, false},
		{gpu.DeviceInfo{Kind: gpu.KindCPU, MemoryBytes: 128e9}, false},
	} {
		if got := residentOnDevice(c.info, klein4B); got != c.want {
			t.Errorf("%s with %.1f GB: %v, want %v", c.info.Kind, float64(c.info.MemoryBytes)/1e9, got, c.want)
		}
	}
}
