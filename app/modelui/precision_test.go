package modelui

import (
	"testing"

	"kleinbild/gpu"
)

// A device ID and its precision go to the opener together and come apart again.
func TestPrecisionDeviceString(t *testing.T) {
	for _, c := range []struct {
		id string
		p  gpu.Precision
	}{{"vulkan:0", gpu.PrecisionFast}, {"vulkan:1", gpu.PrecisionExact}, {"", gpu.PrecisionFast}, {"webgpu:0", gpu.PrecisionExact}} {
		s := WithPrecision(c.id, c.p)
		if DeviceID(s) != c.id || PrecisionOf(s) != c.p {
			t.Errorf("%q %s: %q gives %q %s", c.id, c.p, s, DeviceID(s), PrecisionOf(s))
		}
	}
}
