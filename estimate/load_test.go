package estimate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/engine"
)

func TestEstimateLoadTerm(t *testing.T) {
	m := preset(t, "klein-4B", true)
	rates := Calibration{Backend: "x", LinearGFLOPS: 100, AttentionGFLOPS: 50, ConvGFLOPS: 80}
	mc := Machine{AvailableBytes: 64 * gB, Rates: rates}
	bytes := float64(m.transformerBytes() + m.vaeBytes() + m.encoderFileBytes())
	if got := float64(m.LoadBytes()); got != bytes || bytes < 10e9 {
		t.Fatalf("load bytes %v, want %v (4B weights exceed 10 GB)", got, bytes)
	}

	loaded, err := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}, mc)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.PhaseSeconds.Load != 0 {
		t.Errorf("a loaded model costs %v s of load", loaded.PhaseSeconds.Load)
	}

	// Default rate before any measurement.
	cold, err := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}, Load: true}, mc)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes / DefaultLoadBytesPerSec; relErr(cold.PhaseSeconds.Load, want) > 1e-12 {
		t.Errorf("default load %v s, want %v s", cold.PhaseSeconds.Load, want)
	}
	if relErr(cold.Seconds, loaded.Seconds+cold.PhaseSeconds.Load) > 1e-12 {
		t.Errorf("total %v s, want %v + load %v", cold.Seconds, loaded.Seconds, cold.PhaseSeconds.Load)
	}
	if cold.FLOPs.Load != 0 {
		t.Errorf("loading counted as %v FLOPs", cold.FLOPs.Load)
	}

	// A calibrated rate.
	mc.Rates.LoadBytesPerSec = 2e9
	fast, _ := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}, Load: true}, mc)
	if want := bytes / 2e9; relErr(fast.PhaseSeconds.Load, want) > 1e-12 {
		t.Errorf("calibrated load %v s, want %v s", fast.PhaseSeconds.Load, want)
	}

	// No calibration: no time at all, load included.
	none, _ := Estimate(m, Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}, Load: true}, Machine{AvailableBytes: 64 * gB})
	if none.Seconds != 0 {
		t.Errorf("seconds without calibration: %v", none.Seconds)
	}
}

func TestWithLoad(t *testing.T) {
	c := Calibration{LinearGFLOPS: 1, AttentionGFLOPS: 1, ConvGFLOPS: 1}
	if c.LoadRate() != DefaultLoadBytesPerSec {
		t.Fatalf("uncalibrated rate %v", c.LoadRate())
	}
	c1, err := c.WithLoad(1e9, 2*time.Second)
	if err != nil || c1.LoadBytesPerSec != 500e6 {
		t.Fatalf("first load: %v B/s, %v", c1.LoadBytesPerSec, err)
	}
	c2, _ := c1.WithLoad(3e9, 2*time.Second) // 1.5 GB/s, averaged with 0.5
	if c2.LoadBytesPerSec != 1e9 {
		t.Errorf("second load: %v B/s, want 1e9", c2.LoadBytesPerSec)
	}
	if c3, _ := c.WithLoad(1e9, time.Nanosecond); c3.LoadBytesPerSec != maxLoadBytesPerSec {
		t.Errorf("instant load: %v B/s, want the cap", c3.LoadBytesPerSec)
	}
	for _, bad := range []struct {
		n int64
		d time.Duration
	}{{0, time.Second}, {-1, time.Second}, {1e9, 0}, {1e9, -time.Second}, {4 << 20, time.Second}} {
		if _, err := c.WithLoad(bad.n, bad.d); err == nil {
			t.Errorf("load of %d bytes in %v accepted", bad.n, bad.d)
		}
	}
}

func TestRecordLoadPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calibration.json")
	if _, err := RecordLoad(path, 1e9, time.Second); err == nil {
		t.Error("recorded a load without a calibration file")
	}
	base := Calibration{Backend: "cpu", LinearGFLOPS: 10, AttentionGFLOPS: 5, ConvGFLOPS: 8, Measured: time.Unix(1e9, 0).UTC()}
	if err := base.Save(path); err != nil {
		t.Fatal(err)
	}
	c, err := RecordLoad(path, 4e8, time.Second)
	if err != nil || c.LoadBytesPerSec != 4e8 {
		t.Fatalf("record: %v B/s, %v", c.LoadBytesPerSec, err)
	}
	back, err := LoadCalibration(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.LoadBytesPerSec != 4e8 || back.LinearGFLOPS != 10 || back.Backend != "cpu" {
		t.Errorf("stored %+v", back)
	}
	// A broken file is an error, and stays as it was.
	os.WriteFile(path, []byte("{not json"), 0o644)
	if _, err := RecordLoad(path, 1e9, time.Second); err == nil {
		t.Error("recorded into a broken file")
	}
	if raw, _ := os.ReadFile(path); string(raw) != "{not json" {
		t.Errorf("broken file rewritten: %q", raw)
	}
}
