package form

import (
	"kleinbild/app/internal/uitest"
	"kleinbild/app/jobs"
	"kleinbild/app/progress"
	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// TestFitOnDeviceLimits: a GPU opened with 200 MiB buffers cannot run klein-4B at 512² (the
// VAE decoder's 256.0 MB buffers): the fit line says so before the run; 256² fits.
func TestFitOnDeviceLimits(t *testing.T) {
	m, err := estimate.Preset("klein-4B", true)
	if err != nil {
		t.Fatal(err)
	}
	d := backends.Device{ID: "webgpu:0", Backend: "webgpu", Info: gpu.DeviceInfo{Name: "0x2335", Kind: gpu.KindDiscrete, MaxBufferBytes: 200 << 20, MaxBindingBytes: 2 << 30}}
	for _, c := range []struct {
		side int
		fits bool
	}{{256, true}, {512, false}} {
		req := estimate.Request{Req: engine.Request{Settings: engine.Settings{Width: c.side, Height: c.side}}}
		rep, err := estimate.Estimate(m, req, estimate.Machine{AvailableBytes: 64e9, TotalBytes: 64e9})
		if err != nil {
			t.Fatal(err)
		}
		got := onDeviceLimits(rep, m, req, d)
		if fits := got.Verdict != estimate.DoesNotFit; fits != c.fits || (!fits && !strings.Contains(got.Message, "200.0 MB per buffer")) {
			t.Errorf("%d²: %v %q", c.side, got.Verdict, got.Message)
		}
	}
}

// TestFitOnDeviceMemory: a GPU that reports its memory is what the estimate is checked
// against; CPUs and GPUs of unknown memory keep the RAM estimate.
func TestFitOnDeviceMemory(t *testing.T) {
	m, err := estimate.Preset("klein-4B", true)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := estimate.Estimate(m, estimate.Request{Req: engine.Request{Settings: engine.Settings{Width: 1024, Height: 1024}}}, estimate.Machine{AvailableBytes: 64e9, TotalBytes: 64e9})
	if err != nil || rep.Verdict != estimate.Fits {
		t.Fatalf("%v %v", rep.Verdict, err)
	}
	small := backends.Device{ID: "webgpu:0", Backend: "webgpu", Info: gpu.DeviceInfo{Name: "Small GPU", Kind: gpu.KindDiscrete, MemoryBytes: 4e9}}
	got := onDevice(rep, small)
	if got.Verdict != estimate.DoesNotFit || !strings.Contains(got.Message, "Small GPU") || !strings.Contains(got.Message, "4.0 GB") {
		t.Errorf("small GPU: %v %q", got.Verdict, got.Message)
	}
	big := small
	big.Info.MemoryBytes = 80e9
	got = onDevice(rep, big)
	if got.Verdict != estimate.Fits || got.AvailableBytes != 80e9 || !strings.Contains(fitText(got), "of 80.0 GB") {
		t.Errorf("big GPU: %v %q", got.Verdict, fitText(got))
	}
	unknown := small
	unknown.Info.MemoryBytes = 0
	cpu := small
	cpu.Info.Kind = gpu.KindCPU
	for _, d := range []backends.Device{unknown, cpu} {
		if got := onDevice(rep, d); got.Verdict != rep.Verdict || got.Message != rep.Message || got.AvailableBytes != rep.AvailableBytes {
			t.Errorf("%+v changed the estimate: %q", d.Info, got.Message)
		}
	}
}

// The fit line names the included load after the image count.
func TestFitTextNamesTheLoad(t *testing.T) {
	rep := estimate.Report{Verdict: estimate.Fits, PeakBytes: 1e9, AvailableBytes: 8e9, Seconds: 12,
		PhaseSeconds: estimate.Phases{Load: 4, Denoise: 8}}
	if got, want := fitTextFor(rep, 3), "Fits: needs about 1.0 GB of 8.0 GB available · about 12 s for 3 images, model load included"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	rep.PhaseSeconds.Load = 0
	if got := fitTextFor(rep, 1); strings.Contains(got, "load") {
		t.Errorf("loaded model: %q", got)
	}
}

// The fit line's box keeps its height when the load note goes (a job started), and fits the
// text again after any other change.
func TestFitBoxKeepsItsHeightWhenTheLoadNoteGoes(t *testing.T) {
	c, f, _ := testControls(t, fyne.NewSize(1008, 552))
	l := c.Fit
	long := "Fits: needs about 803.1 MB of 24.3 GB available · about 5.7 s for 12 images" + loadNote
	short := strings.TrimSuffix(long, loadNote)
	f.setShown(true)
	// A width at which the note takes one more line.
	width := float32(0)
	for w := float32(120); w <= 600 && width == 0; w += 10 {
		f.steady.width, f.steady.height = 0, 0
		l.SetText(short)
		f.box.Resize(fyne.NewSize(w, 200))
		without := l.MinSize().Height
		l.SetText(long)
		if l.MinSize().Height > without {
			width = w
		}
	}
	if width == 0 {
		t.Fatal("no width at which the note adds a line")
	}
	f.setText(long)
	f.box.Resize(fyne.NewSize(width, f.box.MinSize().Height))
	tall := f.box.MinSize().Height
	f.setText(short)
	if l.MinSize().Height >= tall {
		t.Fatalf("the line is %v px tall without the note, %v with it", l.MinSize().Height, tall)
	}
	if got := f.box.MinSize().Height; got != tall {
		t.Errorf("without the load note the box is %v px tall, %v before", got, tall)
	}
	f.setText("Fits")
	if got := f.box.MinSize().Height; got >= tall {
		t.Errorf("a short line keeps %v px (long line: %v)", got, tall)
	}
}

// The references are encoded for every image of a run, the prompt once.
func TestRunSecondsReferencesPerImage(t *testing.T) {
	p := estimate.Phases{Load: 1, Encode: 2, References: 3, Denoise: 4, Decode: 5}
	if got := runSeconds(p, 3); got != 1+2+3*(3+4+5)+(4+5) { // with the first image's warm-up (warmup.go)
		t.Errorf("3 images: %v s", got)
	}
	p.Load = 0 // a loaded model warms up no more
	if got := runSeconds(p, 3); got != 2+3*(3+4+5) {
		t.Errorf("3 images on a loaded model: %v s", got)
	}
}

// TestOverLimitsOffersTheCPU: a size over the GPU's limits never starts on it. With the
// automatic device the dialog offers the CPU, asked for with the estimate's reason
// (FitDeps.UseCPU); on a GPU the user chose, it only explains and nothing runs. (That the
// window's next runs then use the CPU, and a banner says so, is root app's
// TestOverLimitsRunsOnTheCPU.)
func TestOverLimitsOffersTheCPU(t *testing.T) {
	c, _, w := testControls(t, fyne.NewSize(1000, 900))
	chosen := &fitModel{}
	var reasons []string
	f := NewFitLine(c.sh, nil, FitDeps{Form: c, Chosen: chosen, UseCPU: func(why string) { reasons = append(reasons, why) }})
	rep := estimate.Report{Verdict: estimate.DoesNotFit, OverDeviceLimits: true,
		Message: "Does not fit on webgpu:0: 289.7 MB is more than 256.0 MB per buffer."}
	ran := 0
	f.ask(rep, true, rep.Message, "Generate", func() { ran++ })
	tapDialogButton(t, w, "Generate on the CPU")
	if ran != 1 || len(reasons) != 1 || !strings.Contains(reasons[0], "256.0 MB per buffer") {
		t.Fatalf("automatic device: ran %d, asked for the CPU with %q", ran, reasons)
	}

	chosen.choice = "webgpu:0"
	f.ask(rep, true, rep.Message, "Generate", func() { ran++ })
	if top := w.Canvas().Overlays().Top(); top == nil || uitest.FindButton(top, "Generate on the CPU") != nil || uitest.FindButton(top, "Generate anyway") != nil {
		t.Fatal("a chosen GPU: the dialog should explain, with no way to run there")
	}
	if ran != 1 || len(reasons) != 1 {
		t.Errorf("a chosen GPU: ran %d, asked for the CPU %d times", ran, len(reasons))
	}
}

// TestEstimateCoversEveryImage: the time shown covers the whole run, every image of
// "Images per run" (the prompt is encoded once). (Before: 9 images were estimated at the
// time of one.)
func TestEstimateCoversEveryImage(t *testing.T) {
	c, fit := tinyFitLine(t)
	fit.Update()
	if !c.Fit.Visible() || !strings.Contains(c.Fit.Text, " · about ") {
		t.Fatalf("no fit line with a time: %q (shown %v)", c.Fit.Text, c.Fit.Visible())
	}
	one, ok := fit.Estimate()
	if !ok || one.Seconds <= 0 {
		t.Fatalf("no time for one image: %+v", one)
	}
	c.SetCount(9)
	fit.Update()
	if !strings.Contains(c.Fit.Text, "for 9 images") {
		t.Fatalf("the fit line for 9 images: %q", c.Fit.Text)
	}
	nine, _ := fit.Estimate()
	p := nine.PhaseSeconds
	want := p.Load + p.Encode + p.References + 9*(p.Denoise+p.Decode) + progress.WarmupSeconds(p) // the model is loaded once
	if math.Abs(nine.Seconds-want) > 1e-9*want || nine.Seconds < 8*(p.Denoise+p.Decode) {
		t.Errorf("9 images: %.3f s, want %.3f s (one image %.3f s)", nine.Seconds, want, one.Seconds)
	}
}

// Issue 36 item 9: the first image after the model opens warms up (its first step took
// 15 s of a 39 s run, each later one 3 s), so its estimate holds a prior for it: the fit line
// and the progress plan of a first image count one more image's denoising and decoding.
// (That once the model is loaded neither does is root app's
// TestLoadedModelEstimateHasNoWarmUp.)
func TestFirstImageEstimateCoversWarmUp(t *testing.T) {
	c, fit := tinyFitLine(t)
	c.SetSize(64, 64)
	cold, ok := fit.Estimate()
	p := cold.PhaseSeconds
	if !ok || p.Load <= 0 || p.Denoise <= 0 {
		t.Fatalf("no cold estimate with a load: %+v", cold)
	}
	if want := p.Job(1) + p.Denoise + p.Decode; math.Abs(cold.Seconds-want) > 1e-9*want {
		t.Errorf("a cold first image is estimated at %.3f s, want %.3f s with the warm-up", cold.Seconds, want)
	}
	c.Prompt.SetText("a cold start")
	f, ok := c.ReadForm()
	if !ok {
		t.Fatal("the form is invalid")
	}
	j := jobs.New(engine.Request{Settings: f.Settings}, f.Count)
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	if plan := fit.PhasePlan(j, true); plan.Load < sec(p.Load+p.Denoise+p.Decode)-time.Millisecond {
		t.Errorf("the first image's plan loads in %v, want the warm-up (%.3f s) in it", plan.Load, p.Load+p.Denoise+p.Decode)
	}
}

// TestFitLine: the fit line follows the form's size once it has been still for fitDebounce,
// and is hidden while the size is invalid.
func TestFitLine(t *testing.T) {
	c, fit := tinyFitLine(t)
	posted := make(chan func(), 64) // what the debounce posts, run on this goroutine
	c.sh.Post = func(fn func()) { posted <- fn }
	c.EstimateSoon = fit.UpdateSoon // as the window wires it
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for !cond() {
			select {
			case fn := <-posted:
				fn()
			case <-deadline:
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	fit.UpdateSoon()
	waitFor("the fit line with a time", func() bool { return c.Fit.Visible() && strings.Contains(c.Fit.Text, " · about ") })
	first := c.Fit.Text
	t.Logf("512×512: %q", first)
	c.SetSize(1024, 1024)
	waitFor("the fit line to follow the size", func() bool { return c.Fit.Text != first })
	t.Logf("1024×1024: %q", c.Fit.Text)
	c.Width.SetText("1000")
	time.Sleep(2 * fitDebounce)
	for len(posted) > 0 {
		(<-posted)()
	}
	if c.Fit.Visible() {
		t.Errorf("fit line shown for an invalid size: %q", c.Fit.Text)
	}
}
