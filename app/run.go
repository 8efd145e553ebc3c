package app

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/humanize"
	"kleinbild/app/progress"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/resources"
)

// progressInterval throttles progress updates that carry no news (same phase and step).
const progressInterval = 50 * time.Millisecond

// runState is one generation in progress.
type runState struct {
	cancel     context.CancelFunc
	done       chan struct{}   // closed when the generating goroutine has returned
	outcome    chan runOutcome // receives the result once the UI shows it
	start      time.Time
	tracker    progress.Tracker
	cancelling bool
	// device is the device ID the run opens the model on; gpuName its backend when that is
	// a GPU ("" for a CPU or when unknown), to tell GPU failures apart.
	device, gpuName string
}

// runOutcome is how a generation ended.
type runOutcome struct {
	entry gallery.Entry
	saved bool
	err   error
	// gpuFailed is true when err came from the GPU the run was on (see deviceFailure).
	gpuFailed bool
	// refFailed is true when err is about a reference image that cannot be read.
	refFailed bool
}

// Generate starts a generation from the current settings (the Generate button and
// Ctrl/Cmd+Enter). Invalid fields show their message and nothing starts.
func (u *UI) Generate() {
	if u.run != nil {
		return
	}
	u.confirmFit(u.generateNow)
}

// generateNow starts a generation without asking about memory.
func (u *UI) generateNow() {
	_, err := u.startGenerate()
	switch {
	case err == nil, errors.Is(err, errInvalidForm), errors.Is(err, errBusy):
	case errors.Is(err, errNoModel):
		u.showErrorAbout(topicModel, err)
	default:
		u.showError(err)
	}
}

var errBusy = errors.New("a generation is already running")

// startGenerate validates the form and starts the generating goroutine.
func (u *UI) startGenerate() (*runState, error) {
	if u.run != nil {
		return nil, errBusy
	}
	if u.modelDir == "" || u.modelErr != nil {
		u.ShowModelDialog()
		return nil, errNoModel
	}
	f, ok := u.readForm()
	if !ok {
		return nil, errInvalidForm
	}
	if !u.ctl.seedLocked || !f.seedGiven {
		f.seed = randomSeed()
		u.ctl.seed.SetText(strconv.FormatUint(f.seed, 10))
	}
	req := engine.Request{
		Prompt: f.prompt, WidthPx: f.width, HeightPx: f.height, Steps: f.steps,
		Seed: f.seed, Guidance: f.guidance, Schedule: f.schedule,
		References: slices.Clone(u.refs),
	}
	info := u.modelInfo
	variant := "base"
	if info.Distilled {
		variant = "distilled"
	}
	meta := imageio.Metadata{
		Prompt: f.prompt, Seed: f.seed, Width: f.width, Height: f.height,
		Steps: f.steps, Guidance: f.guidance, Schedule: f.schedule,
		Model: filepath.Base(u.modelDir), Variant: variant, Software: "Kleinbild",
	}
	u.settings = u.currentSettings(f)
	u.remember(u.settings)

	ctx, cancel := context.WithCancel(u.life)
	r := &runState{cancel: cancel, done: make(chan struct{}), outcome: make(chan runOutcome, 1), start: time.Now()}
	u.run = r
	u.followRun = true
	// Passing messages (a seed locked, settings restored) belong to before the run.
	u.setStatus("")
	u.view.setImage(nil) // the previews replace it
	u.setRunning(true)
	u.showProgress(r, engine.Progress{Phase: engine.PhaseLoading})
	u.updateViewer()
	r.device = u.effectiveDevice()
	r.gpuName = u.gpuBackendOf(r.device)
	u.bg.Add(2)
	go u.execute(ctx, r, u.modelDir, req, meta)
	go u.tick(r)
	return r, nil
}

// Cancel stops the running generation.
func (u *UI) Cancel() {
	r := u.run
	if r == nil || r.cancelling {
		return
	}
	r.cancelling = true
	r.cancel()
	u.setRunning(true)
	u.setStatus("Cancelling…")
}

// generatorFor returns the engine for dir on device, opening it the first time (the model
// stays loaded between generations; another folder or device reopens it). Called from the
// generating goroutine.
func (u *UI) generatorFor(dir, device string) (Generator, error) {
	u.genMu.Lock()
	defer u.genMu.Unlock()
	if u.gen != nil && u.genDir == dir && u.genDevice == device {
		return u.gen, nil
	}
	if c, ok := u.gen.(io.Closer); ok {
		c.Close()
	}
	u.gen, u.genDir, u.genDevice = nil, "", ""
	g, err := u.open(dir, device)
	if err != nil {
		return nil, fmt.Errorf("the model could not be opened: %w", err)
	}
	u.gen, u.genDir, u.genDevice = g, dir, device
	return g, nil
}

// execute runs on its own goroutine: generate, save to the gallery, report back.
func (u *UI) execute(ctx context.Context, r *runState, dir string, req engine.Request, meta imageio.Metadata) {
	defer u.bg.Done()
	defer close(r.done)
	defer r.cancel()
	start := time.Now()
	finish := func(out runOutcome, img image.Image) {
		u.post(func() { u.finishRun(r, out, img) })
	}
	for _, p := range req.References {
		sum, err := imageio.SHA256File(p)
		if err != nil {
			finish(runOutcome{err: fmt.Errorf("reference image %s cannot be read: %w", filepath.Base(p), err), refFailed: true}, nil)
			return
		}
		meta.References = append(meta.References, imageio.Reference{Path: p, SHA256: sum})
	}
	gen, err := u.generatorFor(dir, r.device)
	if err != nil {
		finish(runOutcome{err: err, gpuFailed: deviceFailure(err, nil, r.gpuName)}, nil)
		return
	}
	var last engine.Progress
	var lastSent time.Time
	res, err := gen.Generate(ctx, req, func(p engine.Progress) {
		now := time.Now()
		if p.Phase == last.Phase && p.Step == last.Step && p.Preview == nil && now.Sub(lastSent) < progressInterval {
			return
		}
		last, lastSent = p, now
		u.post(func() { u.showProgress(r, p) })
	})
	if err == nil && (res == nil || res.Image == nil) {
		err = errors.New("the engine returned no image")
	}
	if err != nil {
		if ctx.Err() != nil {
			err = context.Canceled
		}
		finish(runOutcome{err: err, gpuFailed: deviceFailure(err, gen, r.gpuName)}, nil)
		return
	}
	meta.Seed, meta.Steps = res.Seed, res.Steps
	if res.Guidance > 0 {
		meta.Guidance = res.Guidance
	}
	if res.Schedule != "" {
		meta.Schedule = res.Schedule
	}
	meta.Width, meta.Height = res.Image.Rect.Dx(), res.Image.Rect.Dy()
	meta.Created = time.Now()
	meta.Duration = meta.Created.Sub(start)

	select {
	case <-u.galleryReady: // u.gallery is not written after this closes
	case <-u.life.Done():
		return // shutting down before the gallery has even loaded
	}
	g := u.gallery
	if g == nil {
		finish(runOutcome{err: errors.New("the image could not be saved because the gallery folder is unavailable")}, res.Image)
		return
	}
	e, err := g.Add(res.Image, meta)
	saved := e.File != ""
	if saved {
		// A missing thumbnail is made again from the PNG when needed.
		_ = u.thumbs.Put(e.SHA256, res.Image)
	}
	finish(runOutcome{entry: e, saved: saved, err: err}, res.Image)
}

// tickInterval is how often the elapsed time and estimate refresh between reports.
const tickInterval = 250 * time.Millisecond

// tick keeps the progress line's clock running while r is in progress.
func (u *UI) tick(r *runState) {
	defer u.bg.Done()
	t := time.NewTicker(tickInterval)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
			u.post(func() { u.refreshProgress(r) })
		}
	}
}

// showProgress takes a progress report (UI goroutine).
func (u *UI) showProgress(r *runState, p engine.Progress) {
	if u.run != r {
		return
	}
	r.tracker.Update(p, time.Since(r.start))
	if p.Preview != nil && u.followRun {
		u.view.setImage(p.Preview)
		u.updateViewer()
	}
	u.refreshProgress(r)
}

// refreshProgress redraws the progress bar and line (UI goroutine).
func (u *UI) refreshProgress(r *runState) {
	if u.run != r {
		return
	}
	frac, text := r.tracker.Status(time.Since(r.start))
	if r.cancelling {
		text = "Cancelling…"
	}
	u.view.bar.SetValue(frac)
	u.view.progressText.SetText(text)
}

// finishRun shows how a generation ended (UI goroutine).
func (u *UI) finishRun(r *runState, out runOutcome, img image.Image) {
	if u.run == r {
		u.run = nil
	}
	u.setRunning(false)
	defer func() { r.outcome <- out }()
	switch {
	case errors.Is(out.err, context.Canceled):
		u.setStatus("Generation cancelled.")
		u.leaveRun()
		return
	case out.err != nil && !out.saved:
		if out.gpuFailed {
			u.fallBackToCPU(out.err.Error())
		} else {
			topic := topicRun
			if out.refFailed {
				topic = topicRefs
			}
			u.showErrorAbout(topic, fmt.Errorf("generation failed: %w", out.err))
		}
		if img != nil {
			// Made but not saved: the image stays on screen, without a gallery caption.
			u.view.setImage(img)
			u.followRun = true
			u.updateViewer()
			return
		}
		u.leaveRun()
		return
	case out.err != nil:
		u.showError(out.err)
	}
	if out.err == nil {
		// A good run settles what earlier failures were about.
		u.clearBanner(topicModel, topicRefs, topicRun)
	}
	u.followRun = false
	u.refreshGallery()
	u.selectEntry(out.entry.File, img)
	u.setStatus(fmt.Sprintf("Done in %s · saved as %s", humanize.Duration(out.entry.Meta.Duration), out.entry.File))
}

// leaveRun takes the viewer off a run that ended without an image: the gallery image that
// was selected before shows again with its caption and buttons, or the empty state when
// there was none (or it has gone), so the viewer never shows a stale preview under another
// image's caption.
func (u *UI) leaveRun() {
	if !u.followRun {
		u.updateViewer() // the user had moved on to a gallery image; it is still shown
		return
	}
	u.followRun = false
	if u.shownOK && u.gallery != nil && u.gallery.IndexOf(u.shown.File) >= 0 {
		u.selectEntry(u.shown.File, nil)
		return
	}
	u.clearShown()
}

// setRunning switches the main button and progress display between idle and running.
func (u *UI) setRunning(running bool) {
	b := u.ctl.generate
	r := u.run
	switch {
	case !running || r == nil:
		b.SetText("Generate")
		b.SetIcon(theme.NewThemedResource(resources.Sparkles))
		b.Importance = widget.HighImportance
		b.Enable()
		u.view.progress.Hide()
	case r.cancelling:
		b.SetText("Cancelling…")
		b.Disable()
	default:
		b.SetText("Cancel")
		b.SetIcon(theme.MediaStopIcon())
		b.Importance = widget.DangerImportance
		b.Enable()
		u.view.progress.Show()
	}
	b.Refresh()
	if running {
		u.modelBtn.Disable()
	} else {
		u.modelBtn.Enable()
	}
}
