package form

import (
	"kleinbild/app/jobs"
	"kleinbild/app/modelui"

	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/humanize"
	"kleinbild/app/progress"
	"kleinbild/app/shell"
	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// fitDebounce is how long the size must stay unchanged before the estimate is redone.
const fitDebounce = 150 * time.Millisecond

// CalibrateFunc measures (or loads) the kernel speeds of a device (an ID as OpenFunc takes)
// for time estimates.
type CalibrateFunc func(ctx context.Context, device string) (estimate.Calibration, error)

// defaultCalibrate loads the stored calibration of the device or measures one (about a
// second) and stores it (see modelui.CalibrationPath).
func defaultCalibrate(ctx context.Context, device string) (estimate.Calibration, error) {
	b, err := modelui.OpenDevice(device)
	if err != nil {
		return estimate.Calibration{}, err
	}
	defer b.Close()
	path, err := modelui.CalibrationPath(b)
	if err != nil {
		return estimate.Calibration{}, err
	}
	c, _, err := estimate.LoadOrCalibrate(ctx, b, path)
	return c, err
}

// FitLine is the "will it fit" estimate under the Generate button (the label is the
// controls' Fit, given to Wrap).
type FitLine struct {
	sh *shell.Shell
	FitDeps
	line *widget.Label // the controls' Fit; nil before Wrap

	Model     *estimate.Model      // the current model's shapes; nil when unknown
	dir       string               // the key of the model it was read from (modelui.Spec.key)
	Calib     estimate.Calibration // the speeds of Device; invalid until measured
	calibrate CalibrateFunc        // nil: defaultCalibrate
	started   bool                 // calibration started
	Device    string               // the device ID Calib is (being) measured on
	seq       int                  // debounce generation
	// Machine reads the memory figures; nil means estimate.ThisMachine (tests replace it).
	Machine func(estimate.Calibration) estimate.Machine
	box     *fyne.Container // holds the line at a steady height (fitbox.go); nil before Wrap
	steady  *steadyHeight   // box's layout
}

// NewFitLine makes the fit line; calibrate replaces defaultCalibrate when not nil (tests),
// and d is what it uses of the other components.
func NewFitLine(sh *shell.Shell, calibrate CalibrateFunc, d FitDeps) FitLine {
	return FitLine{sh: sh, calibrate: calibrate, FitDeps: d}
}

// LearnLoad takes a model load measured on device: c's load rate (when ok) joins the
// calibration of that device, and the line is updated (the model is now loaded).
func (f *FitLine) LearnLoad(device string, c estimate.Calibration, ok bool) {
	if ok && f.Device == device && f.Calib.Valid() {
		f.Calib.LoadBytesPerSec = c.LoadBytesPerSec
	}
	f.UpdateSoon()
}

// LearnRuns takes the runs measured on device (estimate.RecordRun): c's per-model factors
// replace those of that device's calibration, and the line is updated.
func (f *FitLine) LearnRuns(device string, c estimate.Calibration) {
	if f.Device == device && f.Calib.Valid() {
		f.Calib.Runs = c.Runs
	}
	f.UpdateSoon()
}

// SetModel reads the shapes of the current model for estimates (UI goroutine).
func (f *FitLine) SetModel() {
	key := f.Chosen.ModelKey()
	if key == f.dir && f.Model != nil {
		return
	}
	f.Model, f.dir = nil, key
	if src := f.Chosen.UsableSource(); src != nil {
		if m, err := estimate.ForSource(src); err == nil { // quantized files count as loaded
			f.Model = &m
		}
	}
	f.ShapesChanged(f.Model)
	f.UpdateSoon()
}

// UpdateSoon redoes the estimate once the settings have been still for fitDebounce.
func (f *FitLine) UpdateSoon() {
	f.seq++
	seq := f.seq
	time.AfterFunc(fitDebounce, func() {
		f.sh.Post(func() {
			if seq == f.seq {
				f.Update()
			}
		})
	})
}

// Estimate is the Estimate (package Estimate) for the current model and settings; ok is false when there
// is no model or the size is invalid.
func (f *FitLine) Estimate() (estimate.Report, bool) {
	if f.Model == nil {
		return estimate.Report{}, false
	}
	fig := f.Form.Figures()
	if !fig.sizeOK {
		return estimate.Report{}, false
	}
	ereq := engine.Request{Settings: engine.Settings{Width: fig.width, Height: fig.height, References: f.Refs(), Steps: fig.steps}, Adapters: f.Adapters()}
	if !f.Model.Distilled {
		ereq.Guidance = fig.guidance
	}
	req := estimate.Request{Req: ereq, Load: !f.Loaded(f.Chosen.ModelKey(), f.Chosen.EffectiveDevice())}
	rep, ok := f.estimateFor(req)
	rep.Seconds = runSeconds(rep.PhaseSeconds, fig.count)
	return rep, ok
}

// runSeconds is the time of a run of count images from one image's phases
// (estimate.Phases.Job: the model loaded when it is not yet and the prompt encoded once,
// the references encoded and every image denoised and decoded for each), and the warm-up of
// a model not yet loaded (progress.WarmupSeconds).
func runSeconds(p estimate.Phases, count int) float64 {
	return p.Job(count) + progress.WarmupSeconds(p)
}

// EstimateJob is the estimate (package estimate) for j on the current model and device, from the job's
// own size, steps, guidance and references rather than the form's.
func (f *FitLine) EstimateJob(j *jobs.Job) (estimate.Report, bool) {
	if f.Model == nil {
		return estimate.Report{}, false
	}
	req := j.EstimateRequest(f.Model.Distilled)
	req.Load = !f.Loaded(f.Chosen.ModelKey(), f.Chosen.EffectiveDevice())
	rep, ok := f.estimateFor(req)
	rep.Seconds = runSeconds(rep.PhaseSeconds, j.Count)
	return rep, ok
}

// PhasePlan is the time each phase of an image of j is expected to take (the estimate,
// corrected by this machine's measured runs), for the progress line; first is whether it
// is the job's first image (the later ones neither load the model nor read the prompt).
// It is zero when there is no estimate.
func (f *FitLine) PhasePlan(j *jobs.Job, first bool) progress.Plan {
	rep, ok := f.EstimateJob(j)
	if !ok || rep.PhaseSeconds.Total() <= 0 {
		return progress.Plan{}
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	ps := rep.PhaseSeconds
	p := progress.Plan{Refs: sec(ps.References), Denoise: sec(ps.Denoise), Decode: sec(ps.Decode)}
	if first {
		// The warm-up is planned with the loading: the first step's measured pace then
		// tells the rest, and later phases are not scaled by a pace against it.
		p.Load, p.Encode = sec(ps.Load+progress.WarmupSeconds(ps)), sec(ps.Encode)
	}
	return p
}

// estimateFor is the estimate (package estimate) for req on the current model and device.
func (f *FitLine) estimateFor(req estimate.Request) (estimate.Report, bool) {
	if f.Model == nil {
		return estimate.Report{}, false
	}
	machine := f.Machine
	if machine == nil {
		machine = estimate.ThisMachine
	}
	rep, err := estimate.Estimate(*f.Model, req, machine(f.Calib))
	if err != nil {
		return rep, false
	}
	if d, ok := f.Chosen.DeviceFor(f.Chosen.EffectiveDevice()); ok {
		rep = onDeviceLimits(onDevice(rep, d), *f.Model, req, d)
	}
	return rep, true
}

// onDeviceLimits refuses a GPU whose buffer or binding limit is below a buffer of req
// (estimate.CheckDevice): the run would fail in its first step.
func onDeviceLimits(rep estimate.Report, m estimate.Model, req estimate.Request, d backends.Device) estimate.Report {
	if err := estimate.CheckDevice(m, req, d.Info); err != nil {
		rep.Verdict, rep.OverDeviceLimits = estimate.DoesNotFit, true
		rep.Message = fmt.Sprintf("Does not fit on %s: %s in the model settings.", d.ID, err)
	}
	return rep
}

// onDevice adds a GPU's own memory to an estimate: when the device reports it (WebGPU does
// not), the weights and activations must fit there too.
func onDevice(rep estimate.Report, d backends.Device) estimate.Report {
	mem := d.Info.MemoryBytes
	if d.Info.Kind == gpu.KindCPU || mem <= 0 {
		return rep
	}
	name := d.Info.Name
	if name == "" {
		name = d.ID
	}
	if rep.PeakBytes > mem {
		rep.Verdict = estimate.DoesNotFit
		rep.Message = fmt.Sprintf("Does not fit on %s: this needs about %s of graphics memory (weights and buffers); the device has %s. Choose a smaller size, or the CPU in the model settings.",
			name, humanize.Bytes(uint64(rep.PeakBytes)), humanize.Bytes(uint64(mem)))
		return rep
	}
	// The device's memory is what the line compares with from here on.
	rep.AvailableBytes, rep.TotalBytes = mem, mem
	if rep.Verdict == estimate.Fits {
		rep.Message = fmt.Sprintf("Fits: needs about %s of the %s on %s.", humanize.Bytes(uint64(max(rep.PeakBytes, 0))), humanize.Bytes(uint64(mem)), name)
	}
	return rep
}

// checkStepsQuiet parses the steps field without showing a message (0: the default).
func (c *Controls) checkStepsQuiet() (int, bool) {
	v := atoiOr(c.Steps.Text, 0)
	return v, v == 0 || engine.ValidateSteps(v) == nil
}

// Figures are the form's numbers for the estimate, valid or not.
func (c *Controls) Figures() FormFigures {
	w, wmsg := parseSide("Width", c.Width.Text)
	h, hmsg := parseSide("Height", c.Height.Text)
	steps, _ := c.checkStepsQuiet()
	return FormFigures{width: w, height: h, sizeOK: wmsg == "" && hmsg == "", steps: steps,
		guidance: c.guidance.Value, count: c.countValue()}
}

// Update shows the estimate under the Generate button (UI goroutine) and starts the
// one-time calibration that adds time estimates, unless a generation runs: then the next
// Update after it (the window updates when the run ends) starts it.
func (f *FitLine) Update() {
	l := f.line
	rep, ok := f.Estimate()
	// The panel's layout follows the line's visibility and height.
	defer f.Relayout()
	if !ok {
		f.setShown(false)
		return
	}
	if dev := f.Chosen.EffectiveDevice(); (!f.started || f.Device != dev) && (f.Busy == nil || !f.Busy()) {
		// Once per device: another device's speeds would mislead.
		f.started, f.Device, f.Calib = true, dev, estimate.Calibration{}
		calibrate := f.calibrate
		if calibrate == nil {
			calibrate = defaultCalibrate
		}
		f.sh.BG.Add(1)
		go func() {
			defer f.sh.BG.Done()
			c, err := calibrate(f.sh.Life, dev)
			if err != nil {
				return // estimates simply carry no time
			}
			f.sh.Post(func() {
				if f.Device == dev {
					f.Calib = c
					f.Update()
				}
			})
		}()
	}
	f.setText(fitTextFor(rep, f.Form.Figures().count) + adaptersNote(len(f.Adapters())))
	switch rep.Verdict {
	case estimate.Fits:
		l.Importance = widget.SuccessImportance
	case estimate.Tight:
		l.Importance = widget.WarningImportance
	case estimate.DoesNotFit:
		l.Importance = widget.DangerImportance
	default:
		l.Importance = widget.MediumImportance
	}
	l.Refresh()
	f.setShown(true)
}

// fitText is the estimate in one short line when it fits, else the full explanation.
func fitText(rep estimate.Report) string {
	var s string
	if rep.Verdict == estimate.Fits {
		s = "Fits: needs about " + humanize.Bytes(uint64(max(rep.PeakBytes, 0))) + " of " +
			humanize.Bytes(uint64(max(rep.AvailableBytes, 0))) + " available"
	} else {
		s = rep.Message
	}
	if rep.Seconds > 0 {
		s += " · about " + humanize.Duration(time.Duration(rep.Seconds*float64(time.Second)))
	}
	return s
}

// fitTextFor is fitText for a run of count images: the time is the whole run's, the
// model's load included when it is not loaded yet.
func fitTextFor(rep estimate.Report, count int) string {
	s := fitText(rep)
	if count > 1 && rep.Seconds > 0 {
		s += fmt.Sprintf(" for %d images", count)
	}
	if rep.Seconds > 0 && rep.PhaseSeconds.Load > 0 {
		s += loadNote
	}
	return s
}

// adaptersNote ends the fit line when the estimate counts n adapters switched on (their
// weights are in the memory it needs).
func adaptersNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return ", 1 adapter included"
	}
	return fmt.Sprintf(", %d adapters included", n)
}

// loadNote ends the fit line when its time includes loading the model.
const loadNote = ", model load included"

// Confirm asks before a generation that will not fit in memory: run is called when the
// user agrees, or at once when the estimate does not object.
func (f *FitLine) Confirm(run func()) {
	rep, ok := f.Estimate()
	f.ask(rep, ok, rep.Message, "Generate", run)
}

// ConfirmJob asks, as confirm does, before j is queued or started (verb names that on the
// dialog's button: "Queue", "Generate"), judging by the job's own settings.
func (f *FitLine) ConfirmJob(j *jobs.Job, verb string, run func()) {
	rep, ok := f.EstimateJob(j)
	f.ask(rep, ok, fmt.Sprintf("%d × %d px: %s", j.Req.Width, j.Req.Height, rep.Message), verb, run)
}

// ask shows the "may not fit" dialog for rep with msg when it does not fit, else runs run.
// A size over the GPU's limits never starts there (it would fail in its first step): on
// the automatic device the dialog offers the CPU (askCPU), on a GPU the user chose it only
// says why.
func (f *FitLine) ask(rep estimate.Report, ok bool, msg, verb string, run func()) {
	if !ok || rep.Verdict != estimate.DoesNotFit {
		run()
		return
	}
	if rep.OverDeviceLimits {
		f.askCPU(msg, verb, run)
		return
	}
	d := dialog.NewConfirm("This may not fit in memory", msg+"\n\n"+verb+" anyway?", func(yes bool) {
		if yes {
			run()
		}
	}, f.sh.Win)
	d.SetConfirmText(verb + " anyway")
	d.SetDismissText("Cancel")
	d.Show()
}

// askCPU is ask for a size over the GPU's limits: with the automatic device choice it
// offers to run on the CPU (useCPU, until a device is chosen again), else it explains.
func (f *FitLine) askCPU(msg, verb string, run func()) {
	if f.Chosen.DeviceChoice() != "" {
		dialog.NewInformation("Too large for this GPU", msg, f.sh.Win).Show()
		return
	}
	d := dialog.NewConfirm("Too large for the GPU", msg+"\n\n"+verb+" on the CPU instead (slower)?", func(yes bool) {
		if yes {
			f.UseCPU(strings.TrimSuffix(msg, "."))
			run()
		}
	}, f.sh.Win)
	d.SetConfirmText(verb + " on the CPU")
	d.SetDismissText("Cancel")
	d.Show()
}
