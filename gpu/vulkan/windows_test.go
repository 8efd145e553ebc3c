//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"os"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
)

// TestSmallBindings runs the ops that split their operands into windows (Linear by rows and
// outputs, the element-wise ops by ranges) on a device whose largest storage binding is made
// 64 KiB, so that every window, offset and alignment path runs on lavapipe too.
func TestSmallBindings(t *testing.T) {
	b, err := open(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer b.Close()
	b.pd.lim.maxStorageRange = 64 << 10
	short := gputest.Options{Short: true} // the full sizes of the element-wise tests are small
	for name, fn := range map[string]func(*testing.T, gpu.Backend, gputest.Options){
		"Linear": gputest.TestLinear, "LinearAdd": gputest.TestLinearAdd,
	} {
		t.Run(name, func(t *testing.T) { fn(t, b, short) })
	}
	for name, fn := range map[string]func(*testing.T, gpu.Backend, gputest.Options){
		"Elementwise": gputest.TestElementwise, "GatedAdd": gputest.TestGatedAdd, "Guidance": gputest.TestGuidance,
		"SiLU": gputest.TestSiLU,
	} {
		t.Run(name, func(t *testing.T) { fn(t, b, gputest.Options{}) })
	}
}
