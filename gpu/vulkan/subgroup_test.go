//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"os"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
)

// TestNormsWithoutSubgroups runs the suite's norm cases with the shared-memory reductions
// (norm.comp), the kernel of devices without subgroup arithmetic; TestConformance runs the
// subgroup one where the device has it (lavapipe does).
func TestNormsWithoutSubgroups(t *testing.T) {
	b, err := open(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	defer b.Close()
	t.Logf("%s: subgroups of %d, arithmetic in compute: %v", b.pd.info.Name, b.sg.size, b.sg.arith)
	b.sg.arith = false
	o := gputest.Options{Short: true, LogErrors: *logErrors}
	for name, fn := range map[string]func(*testing.T, gpu.Backend, gputest.Options){
		"RMSNorm": gputest.TestRMSNorm, "HeadRMSNorm": gputest.TestHeadRMSNorm,
		"LayerNorm": gputest.TestLayerNorm, "GroupNorm": gputest.TestGroupNorm,
	} {
		t.Run(name, func(t *testing.T) { fn(t, b, o) })
	}
}

// BenchmarkNorms times LayerNorm and RMSNorm over 4096 rows of 3072 (klein-4B's width) with
// subgroup and with shared-memory reductions, reporting GB/s (one read and one write a value).
func BenchmarkNorms(bm *testing.B) {
	b, err := open(Options{Device: -1})
	if err != nil {
		bm.Skip(err)
	}
	defer b.Close()
	const rows, dim = 4096, 3072
	x, _ := gpu.FromHost(b, make([]float32, rows*dim), rows, dim)
	y, _ := b.Alloc(gpu.F32, rows, dim)
	w, _ := gpu.FromHost(b, make([]float32, dim), dim)
	arith := b.sg.arith
	for _, red := range []string{"subgroup", "shared"} {
		for _, op := range []string{"LayerNorm", "RMSNorm"} {
			bm.Run(op+"/"+red, func(bm *testing.B) {
				b.sg.arith = arith && red == "subgroup"
				if red == "subgroup" && !arith {
					bm.Skip("no subgroup arithmetic")
				}
				for range bm.N {
					if op == "LayerNorm" {
						b.LayerNorm(y, x, w, w, rows, dim, 1e-6)
					} else {
						b.RMSNorm(y, x, w, rows, dim, 1e-6)
					}
					if err := b.Sync(); err != nil {
						bm.Fatal(err)
					}
				}
				bm.ReportMetric(8*rows*dim*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}
