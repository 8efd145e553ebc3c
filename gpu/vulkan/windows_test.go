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

// TestForcedTiles runs Linear with each kernel forced (8: linearsmall over blocks of 8 rows;
// 128 the vector-load kernels where k allows, t128scalar linear128.comp), so that every
// kernel sees every shape of the suite (by shape alone the 128-row tile runs on one of them
// only, linearsmall on those of at most 8 rows).
func TestForcedTiles(t *testing.T) {
	b, err := open(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer b.Close()
	for _, tile := range []int{8, 64, 128, -128} {
		b.linearTile, b.linearScalar = max(tile, -tile), tile < 0
		name := fmt.Sprintf("t%d", b.linearTile)
		if b.linearScalar {
			name += "scalar"
		}
		t.Run(name+"/Linear", func(t *testing.T) { gputest.TestLinear(t, b, gputest.Options{Short: true}) })
		t.Run(name+"/LinearAdd", func(t *testing.T) { gputest.TestLinearAdd(t, b, gputest.Options{Short: true}) })
	}
}

// TestCloseWithLiveTensors: Close releases tensors that were never freed; freeing them or
// running ops afterwards neither panics nor reaches the device, and reports the closed
// backend.
func TestCloseWithLiveTensors(t *testing.T) {
	b, err := open(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	x, err1 := gpu.FromHost(b, []float32{1, 2, 3}, 3)
	y, err2 := b.Alloc(gpu.F32, 3)
	if err := firstErr(err1, err2); err != nil {
		t.Fatal(err)
	}
	b.Add(y, x, x)
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if len(b.live) != 0 {
		t.Errorf("%d buffers left after Close", len(b.live))
	}
	b.Free(x)
	b.Add(y, x, x)
	if err := b.Sync(); err == nil {
		t.Error("Sync after Close succeeded")
	}
	if err := b.Read(make([]float32, 3), y); err == nil {
		t.Error("Read after Close succeeded")
	}
	if _, err := b.Alloc(gpu.F32, 3); err == nil {
		t.Error("Alloc after Close succeeded")
	}
}
