package run

import (
	"kleinbild/app/imagefile"
	"kleinbild/app/modelui"

	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"kleinbild/app/gallery"
	"kleinbild/app/humanize"
	"kleinbild/app/jobqueue"
	"kleinbild/app/jobs"
	"kleinbild/app/notify"
	"kleinbild/app/progress"
	"kleinbild/app/shell"
	"kleinbild/engine"
	"kleinbild/gpu"
)

// progressInterval throttles progress updates that carry no news (same phase and step).
const progressInterval = 50 * time.Millisecond

// Runner makes images: the generation in progress, the queue behind it, the grid of
// the last run's images and the opened generator.
type Runner struct {
	sh *shell.Shell
	Config
	Deps

	genMu     sync.Mutex // guards gen, genDir and genDevice (used by the generation goroutine)
	gen       modelui.Generator
	genDir    string      // the key of the model gen was opened on (modelui.Spec.key)
	genDevice string      // the device ID gen was opened on
	loaded    loadedModel // genDir and genDevice while gen is open, for the estimate (loadtime.go)

	cur   *State          // the generation in progress, or nil
	Queue *jobqueue.Queue // jobs waiting behind the running one (BuildQueue makes it)
	Batch BatchGrid       // the images of the last run that made several
	// qfile keeps the pending jobs in the data folder (queuepersist.go).
	qfile *queueFile
	// afterJob is called when its job's run ends (WhenJobEnds, jobend.go).
	afterJob map[*jobs.Job]func(Outcome)
}

// Config is how the runner opens models and reports its runs; UI.wire gives it.
type Config struct {
	// Version is the software version written into the images' metadata (Options.Version).
	Version string
	// Open opens a generator on a model (Options.Open, or the engine).
	Open modelui.SourceOpenFunc
	// Tuner tunes the automatic device's GPU kernels before its first use.
	Tuner Tuner
	// Notify puts the progress in the window title and reports runs that end in the
	// background (package notify).
	Notify *notify.Notifier
}

// New is a runner on sh that uses the other components through deps. Its widgets are
// made by BuildQueue and BuildViewColumn, and its queue's file is read by SetUpQueue.
func New(sh *shell.Shell, cfg Config, deps Deps) Runner {
	return Runner{sh: sh, Config: cfg, Deps: deps}
}

// Current is the generation in progress, or nil (UI goroutine).
func (rn *Runner) Current() *State { return rn.cur }

// BuildQueue makes the queue's widgets (controls lays them out).
func (rn *Runner) BuildQueue() {
	rn.Queue = jobqueue.New(rn.sh.Tips, rn.enqueueForm, rn.resumeQueue)
}

// CloseGenerator releases the opened generator (once no generation runs).
func (rn *Runner) CloseGenerator() {
	rn.genMu.Lock()
	defer rn.genMu.Unlock()
	if c, ok := rn.gen.(io.Closer); ok {
		c.Close()
	}
	rn.gen = nil
	rn.loaded.set("", "")
}

// Generate starts a generation from the current settings (the Generate button and
// Ctrl/Cmd+Enter), or queues it while another runs. Invalid fields show their message and
// nothing starts.
func (rn *Runner) Generate() {
	if err := rn.sh.Writable(); err != nil {
		rn.sh.ShowError(err)
		return
	}
	if rn.cur != nil {
		rn.enqueueForm()
		return
	}
	rn.Fit.Confirm(rn.generateNow)
}

// generateNow starts a generation without asking about memory.
func (rn *Runner) generateNow() {
	_, err := rn.StartGenerate()
	rn.reportStartError(err)
}

// reportStartError shows why a job did not start.
func (rn *Runner) reportStartError(err error) {
	switch {
	case err == nil, errors.Is(err, jobs.ErrInvalidForm), errors.Is(err, errBusy):
	case errors.Is(err, modelui.ErrNoModel):
		rn.sh.ShowErrorAbout(shell.TopicModel, err)
	default:
		rn.sh.ShowError(err)
	}
}

var errBusy = errors.New("a generation is already running")

// JobFromForm makes a job of the validated form and the references. The seed is the one
// in the field, or a new random one when the field is empty.
func (rn *Runner) JobFromForm(f jobs.Form) *jobs.Job {
	if !f.SeedGiven {
		f.Seed = engine.RandomSeed()
	}
	rn.Form.AddToHistory(f.Prompt)
	req := engine.Request{Settings: f.Settings, Adapters: rn.Adapters.Stack()}
	req.References = slices.Clone(rn.Refs())
	req.AdaptersPartial = rn.Adapters.Partial() // accepted by the user in the Adapters section
	return jobs.New(req, f.Count)
}

// enqueueForm queues a job from the current settings to run after the ones before it.
func (rn *Runner) enqueueForm() {
	f, ok := rn.Form.ReadForm()
	if !ok {
		return
	}
	rn.sh.Settings = rn.Form.CurrentSettings(f)
	rn.sh.Remember(rn.sh.Settings)
	j := rn.JobFromForm(f)
	rn.Fit.ConfirmJob(j, "Queue", func() { rn.enqueue(j) })
}

// Submit starts j, or queues it while another job runs.
func (rn *Runner) Submit(j *jobs.Job) {
	if rn.cur != nil {
		rn.enqueue(j)
		return
	}
	_, err := rn.startJob(j)
	rn.reportStartError(err)
}

// enqueue puts j at the end of the queue; it starts at once when the run it was meant to
// wait for has ended meanwhile (while the memory question was open).
func (rn *Runner) enqueue(j *jobs.Job) {
	rn.Queue.Push(j)
	rn.startQueued()
}

// StartGenerate validates the form and starts the generating goroutine.
func (rn *Runner) StartGenerate() (*State, error) {
	if err := rn.sh.Writable(); err != nil {
		return nil, err
	}
	if rn.cur != nil {
		return nil, errBusy
	}
	if !rn.Model.Usable() {
		rn.Model.ShowDialog()
		return nil, modelui.ErrNoModel
	}
	f, ok := rn.Form.ReadForm()
	if !ok {
		return nil, jobs.ErrInvalidForm
	}
	j := rn.JobFromForm(f)
	if !f.SeedGiven {
		rn.Form.UsedRandomSeed(j.Req.Seed)
	}
	rn.sh.Settings = rn.Form.CurrentSettings(f)
	rn.sh.Remember(rn.sh.Settings)
	return rn.startJob(j)
}

// startQueued starts the next queued job when nothing runs and the queue is not paused
// (UI goroutine).
func (rn *Runner) startQueued() {
	if rn.cur != nil || rn.sh.Life.Err() != nil || len(rn.Queue.Jobs) == 0 || rn.Queue.Paused {
		return
	}
	if !rn.Model.Usable() {
		rn.Queue.SetPaused(true) // the jobs wait until a model is chosen and Resume is pressed
		return
	}
	_, err := rn.startJob(rn.Queue.Pop())
	rn.reportStartError(err)
}

// resumeQueue goes on with a paused queue (its Resume button): the next job starts now,
// or when the running one ends. Without a usable model it asks for one first.
func (rn *Runner) resumeQueue() {
	if !rn.Model.Usable() {
		rn.Model.ShowDialog()
		return
	}
	rn.Queue.SetPaused(false)
	rn.startQueued()
}

// startJob starts the generating goroutine for j (UI goroutine).
func (rn *Runner) startJob(j *jobs.Job) (*State, error) {
	if err := rn.sh.Writable(); err != nil {
		return nil, err
	}
	if rn.cur != nil {
		return nil, errBusy
	}
	if !rn.Model.Usable() {
		return nil, modelui.ErrNoModel
	}
	ctx, cancel := context.WithCancel(rn.sh.Life)
	r := &State{job: j, cancel: cancel, done: make(chan struct{}), outcome: make(chan Outcome, 1), start: time.Now()}
	r.began = r.start
	rn.cur = r
	rn.saveQueue() // the running job stays in the file until it ends
	rn.View.SetFollowRun(true)
	// Passing messages (a seed locked, settings restored) belong to before the run.
	rn.sh.SetStatus("")
	rn.hideBatch()
	rn.View.SetImage(nil) // the previews replace it
	rn.setRunning(true)
	rn.showProgress(r, engine.Progress{Phase: engine.PhaseLoading})
	rn.View.Update()
	r.device = rn.Model.EffectiveDevice()
	r.precision = rn.Model.RunPrecision()
	r.gpuName = rn.Model.GpuBackendOf(r.device)
	rn.sh.BG.Add(2)
	go rn.execute(ctx, r, rn.Model.RunModel(), rn.Model.ModelInfo(), rn.softwareVersion())
	go rn.tick(r)
	return r, nil
}

// softwareVersion is the version written into the images' metadata.
func (rn *Runner) softwareVersion() string {
	if rn.Version != "" {
		return rn.Version
	}
	return "dev"
}

// Cancel stops the running generation.
func (rn *Runner) Cancel() {
	r := rn.cur
	if r == nil || r.cancelling {
		return
	}
	r.cancelling = true
	r.cancel()
	rn.setRunning(true)
	rn.sh.SetStatus("Cancelling…")
}

// generatorFor returns the engine for mdl on device, opening it the first time (the model
// stays loaded between generations; another model or device reopens it). Called from the
// generating goroutine.
func (rn *Runner) generatorFor(mdl modelui.RunModel, device string) (modelui.Generator, error) {
	rn.genMu.Lock()
	defer rn.genMu.Unlock()
	if rn.gen != nil && rn.genDir == mdl.Key && rn.genDevice == device {
		return rn.gen, nil
	}
	if c, ok := rn.gen.(io.Closer); ok {
		c.Close()
	}
	rn.gen, rn.genDir, rn.genDevice = nil, "", ""
	rn.loaded.set("", "")
	start := time.Now()
	g, err := rn.Open(mdl.Src, device)
	if err != nil {
		return nil, fmt.Errorf("the model could not be opened: %w", err)
	}
	rn.gen, rn.genDir, rn.genDevice = g, mdl.Key, device
	rn.loadMeasured(g, mdl, modelui.DeviceID(device), time.Since(start))
	return g, nil
}

// execute runs on its own goroutine: generate each image of the job, save it to the
// gallery as it is done, report back.
func (rn *Runner) execute(ctx context.Context, r *State, mdl modelui.RunModel, info engine.ModelInfo, version string) {
	defer rn.sh.BG.Done()
	defer close(r.done)
	defer r.cancel()
	var saved []gallery.Entry
	finish := func(out Outcome, img image.Image) {
		out.Entries = saved
		if len(saved) > 0 && !out.Saved {
			out.Entry = saved[len(saved)-1]
		}
		rn.sh.Post(func() { rn.finishRun(r, out, img) })
	}
	if err := jobs.Check(r.job.Req); err != nil {
		finish(Outcome{Err: err, jobFailed: true}, nil)
		return
	}
	adapters, err := withMissingAdapters(r.job)
	if err != nil {
		finish(Outcome{Err: err, jobFailed: true}, nil)
		return
	}
	if n := len(r.job.Req.References); n > 0 {
		rn.setActivity(r, fmt.Sprintf("Checking the reference images (%d)…", n), 0)
	}
	// Each input file is hashed once, before the run: every image of it records the
	// files as they were read (engine.Metadata).
	sums := engine.Sums{}
	for _, p := range r.job.Req.References {
		if err := imagefile.CheckReference(p); err != nil {
			finish(Outcome{Err: err, refFailed: true}, nil)
			return
		}
		if err := sums.Add(p); err != nil {
			finish(Outcome{Err: fmt.Errorf("reference image %s cannot be read: %w", filepath.Base(p), errors.Unwrap(err)), refFailed: true}, nil)
			return
		}
	}
	inputs := []string{r.job.Req.Image, r.job.Req.Mask}
	for _, a := range adapters {
		inputs = append(inputs, a.Adapter.Path)
	}
	if err := sums.Add(inputs...); err != nil {
		finish(Outcome{Err: fmt.Errorf("the image could not be described: %w", err), refFailed: true}, nil)
		return
	}
	if err := rn.tuneIfNeeded(ctx, r, r.device); err != nil {
		finish(Outcome{Err: err}, nil)
		return
	}
	rn.setActivity(r, "Loading the model…", 0)
	gen, err := rn.generatorFor(mdl, modelui.WithPrecision(r.device, r.precision))
	if err != nil {
		finish(Outcome{Err: err, GPUFailed: modelui.DeviceFailure(err, nil, r.gpuName)}, nil)
		return
	}
	var indexErr error
	var lastImg image.Image
	for i := range r.job.Count {
		if ctx.Err() != nil {
			finish(Outcome{Err: context.Canceled}, nil)
			return
		}
		req := r.job.Req
		req.Adapters = adapters
		req.Seed += uint64(i)
		req.References = slices.Clone(req.References)
		if i > 0 {
			rn.sh.Post(func() { rn.startImage(r, i) })
		}
		e, img, out := rn.makeImage(ctx, r, gen, req, sums, info, version)
		if out != nil {
			finish(*out, img)
			return
		}
		saved = append(saved, e.Entry)
		rn.runMeasured(gen, mdl, r, e.timings)
		lastImg = img
		if e.indexErr != nil {
			indexErr = e.indexErr
		}
		entry := e.Entry
		rn.sh.Post(func() { rn.imageDone(r, entry, e.indexErr) })
	}
	out := Outcome{Saved: true, Err: indexErr}
	if len(saved) > 0 {
		out.Entry = saved[len(saved)-1]
	}
	finish(out, lastImg)
}

// savedImage is an image saved to the gallery; indexErr is set when the gallery index
// could not be updated (the image is saved all the same).
type savedImage struct {
	gallery.Entry
	indexErr error
	timings  map[engine.Phase]time.Duration // the engine's phase times (runMeasured)
}

// makeImage generates one image and saves it to the gallery (generating goroutine). A
// non-nil outcome means the run ends here (img is set when it was made but not saved).
func (rn *Runner) makeImage(ctx context.Context, r *State, gen modelui.Generator, req engine.Request, sums engine.Sums, info engine.ModelInfo, version string) (savedImage, image.Image, *Outcome) {
	start := time.Now()
	var last engine.Progress
	var lastSent time.Time
	res, err := gen.Generate(ctx, req, func(p engine.Progress) {
		now := time.Now()
		if p.Phase == last.Phase && p.Step == last.Step && p.Preview == nil && now.Sub(lastSent) < progressInterval {
			return
		}
		last, lastSent = p, now
		rn.sh.Post(func() { rn.showProgress(r, p) })
	})
	if err == nil && (res == nil || res.Image == nil) {
		err = errors.New("the engine returned no image")
	}
	if err != nil {
		if ctx.Err() != nil {
			err = context.Canceled
		}
		return savedImage{}, nil, &Outcome{Err: err, GPUFailed: modelui.DeviceFailure(err, gen, r.gpuName)}
	}
	// The same metadata as the command line writes: absolute reference paths, UTC, version.
	meta, err := engine.Metadata(info, req, sums, res, version, time.Since(start))
	if err != nil {
		return savedImage{}, res.Image, &Outcome{Err: fmt.Errorf("the image could not be described: %w", err), refFailed: true}
	}
	if meta.Guidance == 0 {
		meta.Guidance = req.Guidance
	}
	if r.precision == gpu.PrecisionFast { // as the CLI names it; exact is left unsaid
		meta.Precision = string(r.precision)
	}
	select {
	case <-rn.sh.GalleryReady: // sh.Gallery is not written after this closes
	case <-rn.sh.Life.Done():
		return savedImage{}, nil, &Outcome{Err: context.Canceled} // shutting down before the gallery has loaded
	}
	g := rn.sh.Gallery
	if g == nil {
		return savedImage{}, res.Image, &Outcome{Err: errors.New("the image could not be saved because the gallery folder is unavailable")}
	}
	e, err := g.Add(res.Image, meta)
	if e.File == "" {
		return savedImage{}, res.Image, &Outcome{Err: err}
	}
	// A missing thumbnail is made again from the PNG when needed.
	_ = rn.sh.Thumbs.Put(e.SHA256, res.Image)
	return savedImage{Entry: e, indexErr: err, timings: res.Timings}, res.Image, nil
}

// startImage switches the progress display to image i of the run (UI goroutine).
func (rn *Runner) startImage(r *State, i int) {
	r.index = i
	r.tracker = progress.Tracker{}
	r.start = time.Now()
	rn.planImage(r)
	rn.refreshProgress(r)
}

// imageDone takes an image of the run that has been saved (UI goroutine): it shows in the
// gallery at once, and in the run's grid when the run makes several.
func (rn *Runner) imageDone(r *State, e gallery.Entry, indexErr error) {
	r.entries = append(r.entries, e)
	rn.saveQueue() // the images made are not made again after a restart
	rn.Gallery.Refresh()
	rn.Gallery.NoteNew(e.File) // says so when the gallery's filter hides it
	if indexErr != nil {
		rn.sh.ShowError(indexErr)
	}
	if r.job.Count > 1 && rn.cur == r {
		rn.showRun(r.entries)
		rn.sh.SetStatus(fmt.Sprintf("Image %d of %d saved as %s", len(r.entries), r.job.Count, e.File))
	}
}

// TickInterval is how often the elapsed time and estimate refresh between reports.
const TickInterval = 250 * time.Millisecond

// tick keeps the progress line's clock running while r is in progress.
func (rn *Runner) tick(r *State) {
	defer rn.sh.BG.Done()
	t := time.NewTicker(TickInterval)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
			rn.sh.Post(func() { rn.refreshProgress(r) })
		}
	}
}

// showProgress takes a progress report (UI goroutine).
func (rn *Runner) showProgress(r *State, p engine.Progress) {
	if rn.cur != r {
		return
	}
	if !r.tracker.HasPlan() { // the estimate may have come (the calibration) since the image started
		rn.planImage(r)
	}
	r.tracker.Update(p, time.Since(r.start))
	if p.Preview != nil && rn.View.FollowsRun() {
		rn.View.SetImage(p.Preview)
		rn.View.Update()
	}
	rn.refreshProgress(r)
}

// refreshProgress redraws the progress bar and line (UI goroutine).
func (rn *Runner) refreshProgress(r *State) {
	if rn.cur != r {
		return
	}
	frac, text := r.Status()
	rn.View.ShowProgress(frac, text) // the run's, "Image i of n" in a run of several
	rn.Notify.Progress(frac)
}

// planImage gives r's tracker its image's phase times and place in the run (time left
// from the measured phase times, the run's in a run of several).
func (rn *Runner) planImage(r *State) {
	r.tracker.SetPlan(rn.Fit.PhasePlan(r.job, r.index == 0))
	r.tracker.InRun(r.index, r.job.Count, r.start.Sub(r.began), rn.Fit.PhasePlan(r.job, false))
}

// finishRun shows how a generation ended (UI goroutine) and starts the next queued job.
func (rn *Runner) finishRun(r *State, out Outcome, img image.Image) {
	if rn.cur == r {
		rn.cur = nil
	}
	rn.setRunning(false)
	defer rn.startQueued()
	defer func() { r.outcome <- out }()
	defer rn.jobEnded(r.job, out)
	defer func() { rn.Notify.Finished(finishedText(out, r.job.Count)) }()
	defer rn.saveQueue()
	n := len(out.Entries)
	switch {
	case errors.Is(out.Err, context.Canceled):
		if n == 0 {
			rn.sh.SetStatus("Generation cancelled.")
			rn.leaveRun()
			return
		}
		rn.showRunImages(r, out.Entries, nil)
		rn.sh.SetStatus(fmt.Sprintf("Cancelled after %d of %d images; the finished ones are in the gallery.", n, r.job.Count))
		return
	case out.Err != nil && !out.Saved:
		if out.pausesQueue() && len(rn.Queue.Jobs) > 0 {
			// The next jobs would fail the same way: they wait for the user's Resume.
			rn.Queue.SetPaused(true)
		}
		if out.GPUFailed {
			rn.Model.FallBackToCPU(out.Err.Error())
		} else {
			topic := shell.TopicRun
			if out.refFailed {
				topic = shell.TopicRefs
			}
			rn.sh.ShowErrorAbout(topic, fmt.Errorf("generation failed: %w", out.Err))
		}
		if img != nil {
			// Made but not saved: the image stays on screen, without a gallery caption.
			rn.View.SetImage(img)
			rn.View.SetFollowRun(true)
			rn.View.Update()
			return
		}
		if n > 0 {
			rn.showRunImages(r, out.Entries, nil)
			return
		}
		rn.leaveRun()
		return
	case out.Err != nil:
		rn.sh.ShowError(out.Err)
	}
	if out.Err == nil {
		// A good run settles what earlier failures were about.
		rn.sh.ClearBanner(shell.TopicModel, shell.TopicRefs, shell.TopicRun)
	}
	if n == 0 {
		rn.leaveRun()
		return
	}
	rn.showRunImages(r, out.Entries, img)
	if n == 1 {
		rn.sh.SetStatus(fmt.Sprintf("Done in %s · saved as %s", humanize.Duration(out.Entry.Meta.Duration), out.Entry.File))
	} else {
		rn.sh.SetStatus(fmt.Sprintf("Done: %d images in %s, saved in the gallery. Pick one in the grid.", n, humanize.Duration(time.Since(r.began))))
	}
}

// showRunImages shows the images a run saved: a single one in the viewer; several as a
// grid to pick from, with the first in the viewer. last is the last image decoded, if at
// hand.
func (rn *Runner) showRunImages(r *State, entries []gallery.Entry, last image.Image) {
	rn.View.SetFollowRun(false)
	rn.Gallery.Refresh()
	if r.job.Count > 1 {
		rn.Gallery.SelectEntry(entries[0].File, nil)
		rn.showRun(entries)
		return
	}
	rn.Gallery.SelectEntry(entries[len(entries)-1].File, last)
}

// leaveRun takes the viewer off a run that ended without an image: the gallery image that
// was selected before shows again with its caption and buttons, or the empty state when
// there was none (or it has gone), so the viewer never shows a stale preview under another
// image's caption.
func (rn *Runner) leaveRun() {
	if !rn.View.FollowsRun() {
		rn.View.Update() // the user had moved on to a gallery image; it is still shown
		return
	}
	rn.View.SetFollowRun(false)
	if e, ok := rn.View.ShownEntry(); ok && rn.sh.Gallery != nil && rn.sh.Gallery.IndexOf(e.File) >= 0 {
		rn.Gallery.SelectEntry(e.File, nil)
		return
	}
	rn.View.ClearShown()
}

// setRunning switches the widgets that follow the run (the main button, the progress
// display, Add to queue, the model button) between idle and running.
func (rn *Runner) setRunning(running bool) {
	r := rn.cur
	phase := jobs.Running
	switch {
	case !running || r == nil:
		phase = jobs.Idle
	case r.cancelling:
		phase = jobs.Cancelling
	}
	if phase != jobs.Idle {
		rn.Queue.Add.Show()
	} else {
		rn.Queue.Add.Hide()
	}
	rn.PhaseChanged(phase)
}

// Busy reports whether a generation runs.
func (rn *Runner) Busy() bool { return rn.cur != nil }
