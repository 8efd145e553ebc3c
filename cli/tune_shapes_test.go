package cli

import (
	"bytes"
	"strings"
	"testing"

	"kleinbild/gpu/webgpu"
)

// TestTuneSizesFlag: --sizes takes image sizes as generate does and refuses others as a
// usage error (exit 2) before a device opens; --shape-budget refuses a negative duration.
func TestTuneSizesFlag(t *testing.T) {
	if got, err := parseTuneSizes(" 256, 1024,1792"); err != nil || len(got) != 3 || got[2] != 1792 {
		t.Errorf("parseTuneSizes: %v, %v", got, err)
	}
	if got, err := parseTuneSizes(""); err != nil || got != nil {
		t.Errorf("empty --sizes: %v, %v", got, err)
	}
	for _, bad := range []string{"250", "256,x", "0", "99999"} {
		if _, err := parseTuneSizes(bad); err == nil {
			t.Errorf("--sizes %q accepted", bad)
		}
		if code, _, _ := run(t, "tune", "--sizes", bad, "--backend", "purego"); code != 2 {
			t.Errorf("tune --sizes %q: exit %d, want 2", bad, code)
		}
	}
	if code, _, _ := run(t, "tune", "--shape-budget", "-1s", "--backend", "purego"); code != 2 {
		t.Errorf("tune --shape-budget -1s: exit %d, want 2", code)
	}
}

// TestWriteTuneShapes: the per-shape lines follow the tuning's lines, one per shape, with
// the variant, how it was chosen and the rate, or why a shape was not timed.
func TestWriteTuneShapes(t *testing.T) {
	res := &webgpu.TuneResult{Adapter: "a", GPUGFLOPS: 10, Shape: "linear 1×1→1 bf16", Shapes: []webgpu.ShapeTuning{
		{Shape: webgpu.LinearShape{Name: "single to_out at 256²", M: 768, N: 3072, K: 12288}, Bucket: 1024, Variant: "v1", GFLOPS: 123.4},
		{Shape: webgpu.LinearShape{Name: "encoder down_proj", M: 512, N: 2560, K: 9728}, Bucket: 512, Variant: "v2", Cached: true},
		{Shape: webgpu.LinearShape{Name: "x", M: 12544, N: 27648, K: 3072}, Bucket: 16384, Note: "too large for this device"},
	}}
	var buf bytes.Buffer
	if err := writeTune(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	took := strings.Index(out, "\nTook ")
	head := strings.Index(out, "\nLINEAR SHAPE")
	if took < 0 || head < took {
		t.Fatalf("shape table not after the tuning's lines:\n%s", out)
	}
	for _, want := range []string{"single to_out at 256² 768×12288→3072  ≤ 1024", "v1", "tuned", "123.4 GFLOP/s",
		"encoder down_proj 512×9728→2560", "cache", "not timed  too large for this device"} {
		if !strings.Contains(out[head:], want) {
			t.Errorf("shape table lacks %q:\n%s", want, out[head:])
		}
	}
	buf.Reset()
	res.Shapes = nil
	if err := writeTune(&buf, res); err != nil || strings.Contains(buf.String(), "LINEAR SHAPE") {
		t.Errorf("no shapes tuned, yet a shape table:\n%s", buf.String())
	}
}
