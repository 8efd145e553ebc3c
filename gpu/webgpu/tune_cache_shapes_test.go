package webgpu

import (
	"encoding/json"
	"strings"
	"testing"
)

// oldCacheFile is a cache file as written before shape records (the classes' entries
// included).
const oldCacheFile = `{
  "version": 1,
  "adapter": "k|adapter-limits",
  "name": "llvmpipe (LLVM 15.0.7, 256 bits)",
  "families": {
    "linear": {"hash": "h1", "variant": "t128x128-r8x8-k16-v4-s4", "seconds": {"t128x128-r8x8-k16-v4-s4": 0.01}},
    "linear@deep": {"hash": "h1", "variant": "t128x128-r8x8-k16-v4-s4-o4-sk4"}
  },
  "gpu_gflops": 95.5,
  "shape": "linear 48×96→288 bf16",
  "fma_gflops": 400,
  "tuned": "2026-11-20T10:00:00Z"
}`

// TestOldCacheLoads: a file of the format before shape records parses with its entries and
// no shape records; one written with records round-trips; invalid records fail the file.
func TestOldCacheLoads(t *testing.T) {
	c, err := ParseTuneCache([]byte(oldCacheFile), "k|adapter-limits")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Shapes) != 0 || c.Families["linear@deep"].Variant != "t128x128-r8x8-k16-v4-s4-o4-sk4" || c.GPUGFLOPS != 95.5 {
		t.Errorf("old file parsed as %+v", c)
	}
	c.Shapes = []CachedShape{{M: 1024, N: 27648, K: 3072, Hash: "h1", Variant: "v", Seconds: map[string]float64{"v": 0.5}}}
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseTuneCache(raw, "")
	if err != nil || len(back.Shapes) != 1 || back.Shapes[0].M != 1024 || back.Shapes[0].Variant != "v" {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	for _, bad := range []string{
		`[{"m":768,"n":3072,"k":9216,"hash":"h","variant":"v"}]`, // not a bucket
		`[{"m":0,"n":3072,"k":9216,"hash":"h","variant":"v"}]`,
		`[{"m":512,"n":3072,"k":9216,"hash":"h","variant":""}]`,
		`[{"m":512,"n":33554432,"k":9216,"hash":"h","variant":"v"}]`,
		`[{"m":512,"n":3072,"k":9216,"hash":"h","variant":"v"},{"m":512,"n":3072,"k":9216,"hash":"h","variant":"w"}]`,
	} {
		raw := strings.Replace(oldCacheFile, `"tuned":`, `"shapes": `+bad+`, "tuned":`, 1)
		if _, err := ParseTuneCache([]byte(raw), ""); err == nil {
			t.Errorf("accepted shapes %s", bad)
		}
	}
}
