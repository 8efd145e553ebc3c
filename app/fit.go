package app

import (
	"context"
	"time"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/budget"
	"kleinbild/gpu/backends"
)

// fitDebounce is how long the size must stay unchanged before the estimate is redone.
const fitDebounce = 150 * time.Millisecond

// calibrateFunc measures (or loads) the machine's kernel speeds for time estimates.
type calibrateFunc func(ctx context.Context) (budget.Calibration, error)

// defaultCalibrate returns a calibrateFunc that loads the stored calibration or measures one
// (about a second) on the named backend (see backends.Open).
func defaultCalibrate(backend string) calibrateFunc {
	return func(ctx context.Context) (budget.Calibration, error) {
		path, err := budget.DefaultCalibrationPath()
		if err != nil {
			return budget.Calibration{}, err
		}
		b, err := backends.Open(backend)
		if err != nil {
			return budget.Calibration{}, err
		}
		defer b.Close()
		c, _, err := budget.LoadOrCalibrate(ctx, b, path)
		return c, err
	}
}

// fitState is the "will it fit" estimate next to the Generate button.
type fitState struct {
	model     *budget.Model // the current model's shapes; nil when unknown
	dir       string        // the folder model was read from
	calib     budget.Calibration
	calibrate calibrateFunc
	started   bool // calibration started
	seq       int  // debounce generation
	// machine reads the memory figures; nil means budget.ThisMachine (tests replace it).
	machine func(budget.Calibration) budget.Machine
}

// setFitModel reads the shapes of the current model for estimates (UI goroutine).
func (u *UI) setFitModel() {
	f := &u.fit
	if u.modelDir == f.dir && f.model != nil {
		return
	}
	f.model, f.dir = nil, u.modelDir
	if u.modelDir != "" && u.modelErr == nil {
		if m, err := budget.ForFolder(u.modelInfo); err == nil {
			f.model = &m
		}
	}
	u.updateFitSoon()
}

// updateFitSoon redoes the estimate once the settings have been still for fitDebounce.
func (u *UI) updateFitSoon() {
	u.fit.seq++
	seq := u.fit.seq
	time.AfterFunc(fitDebounce, func() {
		u.post(func() {
			if seq == u.fit.seq {
				u.updateFit()
			}
		})
	})
}

// estimate is the budget report for the current model and settings; ok is false when there
// is no model or the size is invalid.
func (u *UI) estimate() (budget.Report, bool) {
	f := &u.fit
	if f.model == nil {
		return budget.Report{}, false
	}
	w, wmsg := parseSide("Width", u.ctl.width.Text)
	h, hmsg := parseSide("Height", u.ctl.height.Text)
	if wmsg != "" || hmsg != "" {
		return budget.Report{}, false
	}
	steps, _ := u.checkStepsQuiet()
	req := budget.Request{WidthPx: w, HeightPx: h, References: len(u.refs), Steps: steps}
	if !f.model.Distilled {
		req.Guidance = u.ctl.guidance.Value
	}
	machine := f.machine
	if machine == nil {
		machine = budget.ThisMachine
	}
	rep, err := budget.Estimate(*f.model, req, machine(f.calib))
	return rep, err == nil
}

// checkStepsQuiet parses the steps field without showing a message (0: the default).
func (u *UI) checkStepsQuiet() (int, bool) {
	v := atoiOr(u.ctl.steps.Text, 0)
	return v, v >= 0 && v <= maxSteps
}

// updateFit shows the estimate under the Generate button (UI goroutine) and starts the
// one-time calibration that adds time estimates.
func (u *UI) updateFit() {
	l := u.ctl.fit
	rep, ok := u.estimate()
	// The panel's layout follows the line's visibility and height.
	defer u.ctl.box.Refresh()
	if !ok {
		l.Hide()
		return
	}
	if f := &u.fit; !f.started {
		f.started = true
		calibrate := f.calibrate
		if calibrate == nil {
			calibrate = defaultCalibrate(u.opts.Backend)
		}
		u.bg.Add(1)
		go func() {
			defer u.bg.Done()
			c, err := calibrate(u.life)
			if err != nil {
				return // estimates simply carry no time
			}
			u.post(func() {
				u.fit.calib = c
				u.updateFit()
			})
		}()
	}
	l.SetText(fitText(rep))
	switch rep.Verdict {
	case budget.Fits:
		l.Importance = widget.SuccessImportance
	case budget.Tight:
		l.Importance = widget.WarningImportance
	case budget.DoesNotFit:
		l.Importance = widget.DangerImportance
	default:
		l.Importance = widget.MediumImportance
	}
	l.Refresh()
	l.Show()
}

// fitText is the estimate in one short line when it fits, else the full explanation.
func fitText(rep budget.Report) string {
	var s string
	if rep.Verdict == budget.Fits {
		s = "Fits: needs about " + humanBytes(uint64(max(rep.PeakBytes, 0))) + " of " +
			humanBytes(uint64(max(rep.AvailableBytes, 0))) + " available"
	} else {
		s = rep.Message
	}
	if rep.Seconds > 0 {
		s += " · about " + formatDuration(time.Duration(rep.Seconds*float64(time.Second)))
	}
	return s
}

// confirmFit asks before a generation that will not fit in memory: run is called when the
// user agrees, or at once when the estimate does not object.
func (u *UI) confirmFit(run func()) {
	rep, ok := u.estimate()
	if !ok || rep.Verdict != budget.DoesNotFit {
		run()
		return
	}
	d := dialog.NewConfirm("This may not fit in memory", rep.Message+"\n\nGenerate anyway?", func(yes bool) {
		if yes {
			run()
		}
	}, u.win)
	d.SetConfirmText("Generate anyway")
	d.SetDismissText("Cancel")
	d.Show()
}
