package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu/webgpu"
	"kleinbild/weights/golden"
)

// TestBenchKernelsQuick: `bench --kernels --quick` on the first WebGPU adapter prints the
// measured FMA rate and copy bandwidth, one row per kernel with the variant run and its rate,
// then the per-phase table of one generation (the tiny model at 32²), and writes it all as
// JSON with the device peak bytes. About a minute on llvmpipe.
func TestBenchKernelsQuick(t *testing.T) {
	if !webgpu.Compiled {
		t.Skip("no WebGPU in this build")
	}
	if testing.Short() {
		t.Skip("slow on software adapters")
	}
	js := filepath.Join(t.TempDir(), "bench.json")
	code, out, errOut := run(t, "bench", "--kernels", "--quick", "--backend", "webgpu:0", "--model", golden.TinyModel(t),
		"--sizes", "32", "--steps", "1", "--peak-reps", "0", "--json", js, "-q")
	if code != 0 {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") != "1" && strings.Contains(errOut, "cannot open") {
			t.Skip(errOut)
		}
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Logf("\n%s", out)
	for _, want := range []string{"f32 FMA peak: ", "copy bandwidth: ", "device peak: ", "klein-4B 1024²", "Qwen3 512 tokens",
		"VAE 1024²", "32² new prompt", "step 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "same prompt") {
		t.Error("--kernels ran more than one generation")
	}
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Kernels struct {
			FMA  float64 `json:"fma_gflops"`
			Copy float64 `json:"copy_gbps"`
			Peak int64   `json:"device_peak_bytes"`
			Rows []struct {
				Variant string  `json:"variant"`
				GFLOPS  float64 `json:"gflops"`
				Pct     float64 `json:"pct_peak"`
			} `json:"kernels"`
		} `json:"kernels"`
		Runs []json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	k := rep.Kernels
	if k.FMA <= 0 || k.Copy <= 0 || k.Peak <= 0 || len(k.Rows) != 18 || len(rep.Runs) != 1 {
		t.Fatalf("JSON: FMA %g, copy %g, peak %d bytes, %d kernels, %d runs", k.FMA, k.Copy, k.Peak, len(k.Rows), len(rep.Runs))
	}
	for i, r := range k.Rows {
		if r.Variant == "" || r.GFLOPS <= 0 || r.Pct <= 0 {
			t.Errorf("kernel %d: %+v", i, r)
		}
	}
	if code, _, _ := run(t, "bench", "--quick", "--model", golden.TinyModel(t)); code != 2 {
		t.Errorf("--quick without --kernels: exit %d, want 2", code)
	}
}
