package estimate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/engine"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// testRates are complete kernel rates (every unit priced).
var testRates = Calibration{Backend: "x", LinearGFLOPS: 100, AttentionGFLOPS: 50, ConvGFLOPS: 80,
	AttentionScoresPerSec: 2e9, ConvColumnsPerSec: 3e9, ValuesPerSec: 1e8}

// tinyModel is the golden tiny model's estimate Model.
func tinyModel(t *testing.T) Model {
	t.Helper()
	info, err := engine.Inspect(golden.TinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ForFolder(info)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// seconds is the estimate's time (the kernel rates in c, runs included).
func seconds(t *testing.T, m Model, req Request, c Calibration) Report {
	t.Helper()
	r, err := Estimate(m, req, Machine{AvailableBytes: 64 * gB, Rates: c})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// timings is what the engine would report for an image whose phases took k times their
// modeled time (per phase: encode, references, denoise, decode).
func timings(p Phases, k [4]float64) map[engine.Phase]time.Duration {
	d := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return map[engine.Phase]time.Duration{
		engine.PhaseLoading:  d(0.001),
		engine.PhaseEncoding: d(p.Encode * k[0]), engine.PhaseRefs: d(p.References * k[1]),
		engine.PhaseDenoise: d(p.Denoise * k[2]), engine.PhaseDecoding: d(p.Decode * k[3]),
	}
}

// TestJobCountsOneTimeWorkOnce: a job of 16 images loads the model and encodes the prompt
// once, and encodes the references, denoises and decodes for every image.
func TestJobCountsOneTimeWorkOnce(t *testing.T) {
	m := preset(t, "klein-4B", true)
	req := Request{Req: engine.Request{Settings: engine.Settings{Width: 1024, Height: 1024, References: refPaths(1)}}, Load: true}
	one := seconds(t, m, req, testRates)
	req.Count = 16
	job := seconds(t, m, req, testRates)
	p := one.PhaseSeconds
	if p.Load <= 0 || p.Encode <= 0 || p.References <= 0 || p.Denoise <= 0 || p.Decode <= 0 {
		t.Fatalf("phases %+v", p)
	}
	want := p.Load + p.Encode + 16*(p.References+p.Denoise+p.Decode)
	if relErr(job.Seconds, want) > 1e-12 || relErr(p.Job(16), want) > 1e-12 || job.PhaseSeconds != p {
		t.Errorf("16 images: %v s, want %v s (one image %+v)", job.Seconds, want, p)
	}
	if relErr(one.Seconds, p.Total()) > 1e-12 || p.Job(0) != p.Job(1) {
		t.Errorf("one image: %v s, phases total %v", one.Seconds, p.Total())
	}
}

// TestRecordedRunPredictsOtherJobs: after one measured image (each phase a different
// multiple of its modeled time), a 16-image job at another size is predicted as 16 times
// the per-image phases at their measured speeds plus the one-time work once, not 16 times
// the measured image; on the tiny model and, in arithmetic, on klein-4B.
func TestRecordedRunPredictsOtherJobs(t *testing.T) {
	k := [4]float64{3, 2.5, 1.5, 4} // encode, references, denoise, decode
	for name, m := range map[string]Model{"tiny": tinyModel(t), "klein-4B": preset(t, "klein-4B", true)} {
		c, err := testRates.WithLoad(100*m.LoadBytes(), 200*time.Second) // the rate of the whole model in 2 s
		if err != nil {
			t.Fatal(err)
		}
		at := func(side, count int) Request {
			return Request{Req: engine.Request{Settings: engine.Settings{Width: side, Height: side, References: refPaths(1)}}, Count: count}
		}
		measured := seconds(t, m, at(512, 1), c).PhaseSeconds
		c2, err := c.WithRun(m, at(512, 1), timings(measured, k), time.Unix(1, 0))
		if err != nil {
			t.Fatal(err)
		}
		if f := c2.Runs[m.Key()]; relErr(f.Encode, k[0]) > 1e-6 || relErr(f.References, k[1]) > 1e-6 || relErr(f.Denoise, k[2]) > 1e-6 || relErr(f.Decode, k[3]) > 1e-6 {
			t.Errorf("%s: factors %+v, want %v", name, f, k)
		}
		for _, side := range []int{256, 512, 1024, 1792} {
			req := at(side, 16)
			req.Load = true
			raw := seconds(t, m, req, c)
			got := seconds(t, m, req, c2)
			p := raw.PhaseSeconds
			want := p.Load + k[0]*p.Encode + 16*(k[1]*p.References+k[2]*p.Denoise+k[3]*p.Decode)
			if relErr(got.Seconds, want) > 1e-9 || !got.RunCalibrated || raw.RunCalibrated {
				t.Errorf("%s %d², 16 images: %.4g s, want %.4g s", name, side, got.Seconds, want)
			}
			if side == 512 {
				one := p.Load + measured.Encode*k[0] + measured.References*k[1] + measured.Denoise*k[2] + measured.Decode*k[3]
				if saved := 16*one - got.Seconds; relErr(saved, 15*(p.Load+k[0]*p.Encode)) > 1e-9 {
					t.Errorf("%s: 16 images at the measured size %.4g s, 16 × the whole image %.4g s: the one-time work counted %.3g times", name, got.Seconds, 16*one, 16-saved/(p.Load+k[0]*p.Encode))
				}
			}
		}
		// Another model on the same device is not corrected by this one's runs.
		other := preset(t, "klein-9B", true)
		if seconds(t, other, at(512, 1), c2).RunCalibrated {
			t.Errorf("%s: its runs corrected klein-9B", name)
		}
	}
}

// TestWithRunFolding: a cached prompt's encoding teaches nothing, a second run is averaged
// with the first, factors are bounded, the calibration given is not changed, and only the
// most recently run models are kept.
func TestWithRunFolding(t *testing.T) {
	m := preset(t, "klein-4B", true)
	req := Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}
	p := seconds(t, m, req, testRates).PhaseSeconds
	c1, err := testRates.WithRun(m, req, timings(p, [4]float64{2, 0, 2, 2}), time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if testRates.Runs != nil {
		t.Fatal("WithRun changed its receiver")
	}
	cached := timings(p, [4]float64{0.01, 0, 4, 1e6})
	c2, err := c1.WithRun(m, req, cached, time.Unix(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	f1, f2 := c1.Runs[m.Key()], c2.Runs[m.Key()]
	if relErr(f1.Encode, 2) > 1e-6 || f2.Encode != f1.Encode {
		t.Errorf("encode factors %v then %v: a cached prompt's encoding changed it", f1.Encode, f2.Encode)
	}
	if relErr(f2.Denoise, 3) > 1e-6 || relErr(f2.Decode, (2+maxRunFactor)/2) > 1e-6 || f2.References != 0 {
		t.Errorf("second run: %+v", f2)
	}
	// The references, never measured, run at the decoder's measured speed (the same VAE).
	withRef := Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512, References: refPaths(1)}}}
	raw, got := seconds(t, m, withRef, testRates).PhaseSeconds, seconds(t, m, withRef, c2).PhaseSeconds
	if relErr(got.References, raw.References*f2.Decode) > 1e-9 {
		t.Errorf("references %v s, want %v × the decoder's factor %v", got.References, raw.References, f2.Decode)
	}
	if _, err := testRates.WithRun(m, req, map[engine.Phase]time.Duration{}, time.Unix(3, 0)); err == nil {
		t.Error("a run with no phase timed was recorded")
	}
	if _, err := (Calibration{}).WithRun(m, req, cached, time.Unix(3, 0)); err == nil {
		t.Error("a run recorded without kernel rates")
	}
	c := testRates
	for i := range maxRunModels + 3 {
		mi := m
		mi.TransformerBytes = int64(1e9 + i) // another quantization: another model
		if c, err = c.WithRun(mi, req, timings(p, [4]float64{1, 1, 1, 1}), time.Unix(int64(10+i), 0)); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.Runs) != maxRunModels {
		t.Errorf("%d models remembered, want %d", len(c.Runs), maxRunModels)
	}
	for _, f := range c.Runs {
		if f.Updated.Before(time.Unix(13, 0)) {
			t.Errorf("an old model kept: %v", f.Updated)
		}
	}
}

// TestRecordRunStored: runs go through the calibration file and survive a reload; without
// a stored calibration nothing is recorded.
func TestRecordRunStored(t *testing.T) {
	m := preset(t, "klein-4B", true)
	req := Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}
	p := seconds(t, m, req, testRates).PhaseSeconds
	path := filepath.Join(t.TempDir(), "calibration.json")
	if _, err := RecordRun(path, m, req, timings(p, [4]float64{1, 1, 1, 1})); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no calibration file: %v", err)
	}
	if err := testRates.Save(path); err != nil {
		t.Fatal(err)
	}
	c, err := RecordRun(path, m, req, timings(p, [4]float64{2, 2, 2, 2}))
	if err != nil {
		t.Fatal(err)
	}
	back, err := LoadCalibration(path)
	if err != nil {
		t.Fatal(err)
	}
	if f := back.Runs[m.Key()]; relErr(f.Decode, 2) > 1e-6 || f != c.Runs[m.Key()] || !back.complete() {
		t.Errorf("stored %+v, returned %+v", back, c)
	}
}

// TestModelKey: the key tells models and quantizations apart and is stable.
func TestModelKey(t *testing.T) {
	a, b := preset(t, "klein-4B", true), preset(t, "klein-4B", true)
	if a.Key() != b.Key() {
		t.Error("same model, two keys")
	}
	q := a
	q.TransformerBytes = 4e9
	if q.Key() == a.Key() || a.Key() == preset(t, "klein-9B", true).Key() || a.Key() == tinyModel(t).Key() {
		t.Error("different models share a key")
	}
}

// TestNonFLOPCosts: scores, columns and values are priced at their own rates, and weigh far
// more in the tiny model (small heads, 16-channel VAE) than in klein-4B, whose time the
// FLOPs dominate.
func TestNonFLOPCosts(t *testing.T) {
	w := Work{Linear: 1e9, Attention: 1e9, Conv: 1e9, Scores: 2e9, Columns: 3e9, Values: 1e8}
	if got, want := w.Seconds(testRates), 1e9/100e9+1e9/50e9+1e9/80e9+1+1+1; relErr(got, want) > 1e-12 {
		t.Errorf("seconds %v, want %v", got, want)
	}
	flopsOnly := Calibration{Backend: "x", LinearGFLOPS: 100, AttentionGFLOPS: 50, ConvGFLOPS: 80}
	if got, want := w.Seconds(flopsOnly), 1e9/100e9+1e9/50e9+1e9/80e9; relErr(got, want) > 1e-12 {
		t.Errorf("without unit rates: %v, want %v", got, want)
	}
	share := func(m Model) (den, dec float64) {
		req := Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}
		full := seconds(t, m, req, testRates).PhaseSeconds
		flops := seconds(t, m, req, flopsOnly).PhaseSeconds
		return 1 - flops.Denoise/full.Denoise, 1 - flops.Decode/full.Decode
	}
	tden, tdec := share(tinyModel(t))
	bden, bdec := share(preset(t, "klein-4B", true))
	t.Logf("share of non-FLOP costs: tiny denoise %.2f decode %.2f, klein-4B %.2f %.2f", tden, tdec, bden, bdec)
	if tden < 2*bden || tdec < 2*bdec || bden > 0.2 || bdec > 0.5 {
		t.Errorf("non-FLOP shares: tiny %.2f/%.2f, klein-4B %.2f/%.2f", tden, tdec, bden, bdec)
	}
}

// TestSplit recovers a FLOP rate and a unit rate from two measurements, and falls back to
// FLOPs alone when the units cost nothing measurable.
func TestSplit(t *testing.T) {
	const gflops, units = 50.0, 2e9
	time := func(flops, n float64) float64 { return flops/(gflops*1e9) + n/units }
	g, u := split(time(1e10, 1e8), time(1e9, 4e8), 1e10, 1e8, 1e9, 4e8)
	if relErr(g, gflops) > 1e-9 || relErr(u, units) > 1e-9 {
		t.Errorf("split: %v GFLOP/s, %v units/s", g, u)
	}
	g, u = split(0.2, 0.01, 1e10, 1e8, 1e9, 4e8) // the second faster than its FLOPs allow
	if relErr(g, 50) > 1e-9 || u != freeRate {
		t.Errorf("degenerate split: %v GFLOP/s, %v units/s", g, u)
	}
}

// TestLoadOrCalibrateRemeasuresIncomplete: a file written before the unit rates were
// measured is measured again.
func TestLoadOrCalibrateRemeasuresIncomplete(t *testing.T) {
	dev := backends.DefaultCPU()
	defer dev.Close()
	path := filepath.Join(t.TempDir(), "calibration.json")
	old := Calibration{Backend: dev.Name(), LinearGFLOPS: 1, AttentionGFLOPS: 1, ConvGFLOPS: 1}
	if err := old.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCalibration(path); err != nil {
		t.Fatalf("an old file is still readable: %v", err)
	}
	if c, measured, err := loadOrCalibrate(t.Context(), dev, path, func(ctx context.Context, b gpu.Backend) (Calibration, error) {
		c := testRates
		c.Backend = b.Name()
		return c, nil
	}); err != nil || !measured || !c.complete() {
		t.Errorf("old file: %+v measured %v, %v", c, measured, err)
	}
}

// Issue 36 item 9: a 50-step base run said "about 2 min 12 s left" of a 20 s run: its
// estimate had the kernel rates alone, though the distilled model of the same networks had
// taught its factors. A model borrows its twin's factors for the phases it has not run.
func TestTwinModelsShareRuns(t *testing.T) {
	distilled, base := preset(t, "klein-4B", true), preset(t, "klein-4B", false)
	req := Request{Req: engine.Request{Settings: engine.Settings{Width: 512, Height: 512}}}
	k := [4]float64{3, 2.5, 0.2, 4}
	c, err := testRates.WithRun(distilled, req, timings(seconds(t, distilled, req, testRates).PhaseSeconds, k), time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	raw, got := seconds(t, base, req, testRates), seconds(t, base, req, c)
	if !got.RunCalibrated || relErr(got.PhaseSeconds.Denoise, k[2]*raw.PhaseSeconds.Denoise) > 1e-9 || relErr(got.PhaseSeconds.Decode, k[3]*raw.PhaseSeconds.Decode) > 1e-9 {
		t.Errorf("base model after distilled runs: denoise %.4g s (rates %.4g s), want ×%v", got.PhaseSeconds.Denoise, raw.PhaseSeconds.Denoise, k[2])
	}
	// The base model's own denoising factor comes first; its decoding still borrows.
	own := [4]float64{0, 0, 0.5, 0}
	p := seconds(t, base, req, testRates).PhaseSeconds
	tm := timings(p, own)
	delete(tm, engine.PhaseDecoding)
	c2, err := c.WithRun(base, req, tm, time.Unix(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	got = seconds(t, base, req, c2)
	if relErr(got.PhaseSeconds.Denoise, 0.5*p.Denoise) > 1e-9 || relErr(got.PhaseSeconds.Decode, k[3]*p.Decode) > 1e-9 {
		t.Errorf("base model with its own runs: %+v, want denoise ×0.5 and decode ×%v of %+v", got.PhaseSeconds, k[3], p)
	}
	// Another model does not borrow.
	if seconds(t, preset(t, "klein-9B", false), req, c2).RunCalibrated {
		t.Error("klein-9B borrowed klein-4B's runs")
	}
}

// Issue 36 item 9: a 1024×576 image estimated at 21 s took 46–48 s. Where memory is tight
// the report says what each image re-reads from disk (ReadBytes), and the time now counts
// it at the calibrated read rate, in the phase that reads it.
func TestRereadsArePriced(t *testing.T) {
	m := preset(t, "klein-4B", true)
	c, err := testRates.WithLoad(m.LoadBytes(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Req: engine.Request{Settings: engine.Settings{Width: 1024, Height: 576}}, Count: 2}
	at := func(avail uint64) Report {
		r, err := Estimate(m, req, Machine{AvailableBytes: avail, TotalBytes: 64 * gB, Rates: c})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	roomy := at(64 * gB)
	if roomy.Verdict != Fits || roomy.ReadBytes != 0 {
		t.Fatalf("64 GB: %v, %d bytes re-read", roomy.Verdict, roomy.ReadBytes)
	}
	// Each phase fits on its own: the transformer and the VAE are paged in for every image.
	mem := roomy.Memory
	tight := at(uint64(roomy.WorkingSetBytes))
	if tight.Verdict != Tight || tight.ReadBytes == 0 {
		t.Fatalf("tight: %v, %d bytes re-read", tight.Verdict, tight.ReadBytes)
	}
	rate := c.LoadRate()
	p, q := roomy.PhaseSeconds, tight.PhaseSeconds
	if relErr(q.Denoise-p.Denoise, float64(mem.TransformerWeights)/rate) > 1e-9 || relErr(q.Decode-p.Decode, float64(mem.VAEWeights)/rate) > 1e-9 ||
		relErr(q.Encode-p.Encode, float64(mem.EncoderWeights)/rate) > 1e-9 {
		t.Errorf("re-reads priced %+v over %+v; want %.3g s, %.3g s and %.3g s more", q, p,
			float64(mem.EncoderWeights)/rate, float64(mem.TransformerWeights)/rate, float64(mem.VAEWeights)/rate)
	}
	if want := q.Job(2); tight.Seconds != want || tight.Seconds <= roomy.Seconds {
		t.Errorf("tight job %.4g s (phases say %.4g s), roomy %.4g s", tight.Seconds, want, roomy.Seconds)
	}
}
