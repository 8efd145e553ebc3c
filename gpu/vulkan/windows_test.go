//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
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

// TestForcedTiles runs Linear with each kernel forced (8: linearsmall over blocks of 8 rows),
// so that every kernel sees every shape of the suite (by shape alone the 128-row tile runs on
// one of them only, linearsmall on those of at most 8 rows).
func TestForcedTiles(t *testing.T) {
	b, err := open(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer b.Close()
	for _, tile := range []int{8, 64, 128} {
		b.linearTile = tile
		t.Run(fmt.Sprintf("t%d/Linear", tile), func(t *testing.T) { gputest.TestLinear(t, b, gputest.Options{Short: true}) })
		t.Run(fmt.Sprintf("t%d/LinearAdd", tile), func(t *testing.T) { gputest.TestLinearAdd(t, b, gputest.Options{Short: true}) })
	}
}
