package app

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

// runner makes images: the generation in progress, the queue behind it, the grid of
// the last run's images and the opened generator.
type runner struct {
	sh *shell.Shell
	// version is the software version written into the images' metadata (Options.Version).
	version string
	runnerDeps
	// open opens a generator on a model (Options.Open, or the engine).
	open modelui.SourceOpenFunc

	genMu     sync.Mutex // guards gen, genDir and genDevice (used by the generation goroutine)
	gen       Generator
	genDir    string      // the key of the model gen was opened on (modelui.Spec.key)
	genDevice string      // the device ID gen was opened on
	loaded    loadedModel // genDir and genDevice while gen is open, for the estimate (loadtime.go)

	cur   *runState       // the generation in progress, or nil
	queue *jobqueue.Queue // jobs waiting behind the running one
	batch batchGrid       // the images of the last run that made several
	tuner deviceTuner
	// notify puts the progress in the window title and reports runs that end in the
	// background (package notify).
	notify *notify.Notifier
	// qfile keeps the pending jobs in the data folder (queuepersist.go).
	qfile *queueFile
	// afterJob is called when its job's run ends (whenJobEnds, inpaintresult.go).
	afterJob map[*job]func(runOutcome)
}

// buildQueue makes the queue's widgets (controls lays them out).
func (rn *runner) buildQueue() {
	rn.queue = jobqueue.New(rn.sh.Tips, rn.enqueueForm, rn.resumeQueue)
}

// closeGenerator releases the opened generator (once no generation runs).
func (rn *runner) closeGenerator() {
	rn.genMu.Lock()
	defer rn.genMu.Unlock()
	if c, ok := rn.gen.(io.Closer); ok {
		c.Close()
	}
	rn.gen = nil
	rn.loaded.set("", "")
}

// runState is one job in progress: its images are made one after another.
type runState struct {
	job        *job
	cancel     context.CancelFunc
	done       chan struct{}    // closed when the generating goroutine has returned
	outcome    chan runOutcome  // receives the result once the UI shows it
	began      time.Time        // when the run started
	start      time.Time        // when the current image was started
	tracker    progress.Tracker // the current image's progress
	index      int              // the image being made, from 0 (UI goroutine)
	entries    []gallery.Entry  // the images saved so far (UI goroutine)
	cancelling bool
	// device is the device ID the run opens the model on; gpuName its backend when that is
	// a GPU ("" for a CPU or when unknown), to tell GPU failures apart.
	device, gpuName string
	// precision is the precision the model runs in on device (modelui.RunPrecision, precision.go).
	precision gpu.Precision
}

// runOutcome is how a generation ended.
type runOutcome struct {
	// entry is the last image saved and saved whether the last image made was saved.
	entry gallery.Entry
	saved bool
	// entries are all the images of the run that were saved, in order.
	entries []gallery.Entry
	err     error
	// gpuFailed is true when err came from the GPU the run was on (see modelui.DeviceFailure).
	gpuFailed bool
	// refFailed is true when err is about a reference image that cannot be read.
	refFailed bool
	// jobFailed is true when err is about this job's own settings (its size, steps…).
	jobFailed bool
}

// pausesQueue reports whether the run failed in a way the next jobs would too (the model
// cannot be opened, the device failed, memory ran out, the gallery cannot be written),
// rather than because of this job's own references or settings.
func (o runOutcome) pausesQueue() bool {
	return o.err != nil && !o.saved && !errors.Is(o.err, context.Canceled) && !o.refFailed && !o.jobFailed
}

// Generate starts a generation from the current settings (the Generate button and
// Ctrl/Cmd+Enter), or queues it while another runs. Invalid fields show their message and
// nothing starts.
func (u *UI) Generate() { u.run.generate() }

// generate is Generate.
func (rn *runner) generate() {
	if err := rn.sh.Writable(); err != nil {
		rn.sh.ShowError(err)
		return
	}
	if rn.cur != nil {
		rn.enqueueForm()
		return
	}
	rn.fit.Confirm(rn.generateNow)
}

// generateNow starts a generation without asking about memory.
func (rn *runner) generateNow() {
	_, err := rn.startGenerate()
	rn.reportStartError(err)
}

// reportStartError shows why a job did not start.
func (rn *runner) reportStartError(err error) {
	switch {
	case err == nil, errors.Is(err, jobs.ErrInvalidForm), errors.Is(err, errBusy):
	case errors.Is(err, modelui.ErrNoModel):
		rn.sh.ShowErrorAbout(shell.TopicModel, err)
	default:
		rn.sh.ShowError(err)
	}
}

var errBusy = errors.New("a generation is already running")

// jobFromForm makes a job of the validated form and the references. The seed is the one
// in the field, or a new random one when the field is empty.
func (rn *runner) jobFromForm(f jobs.Form) *job {
	if !f.SeedGiven {
		f.Seed = engine.RandomSeed()
	}
	rn.form.AddToHistory(f.Prompt)
	req := engine.Request{Settings: f.Settings, Adapters: rn.adapters.Stack()}
	req.References = slices.Clone(rn.refs())
	req.AdaptersPartial = rn.adapters.Partial() // accepted by the user in the Adapters section
	return jobs.New(req, f.Count)
}

// enqueueForm queues a job from the current settings to run after the ones before it.
func (rn *runner) enqueueForm() {
	f, ok := rn.form.ReadForm()
	if !ok {
		return
	}
	rn.sh.Settings = rn.form.CurrentSettings(f)
	rn.sh.Remember(rn.sh.Settings)
	j := rn.jobFromForm(f)
	rn.fit.ConfirmJob(j, "Queue", func() { rn.enqueue(j) })
}

// submit starts j, or queues it while another job runs.
func (rn *runner) submit(j *job) {
	if rn.cur != nil {
		rn.enqueue(j)
		return
	}
	_, err := rn.startJob(j)
	rn.reportStartError(err)
}

// enqueue puts j at the end of the queue; it starts at once when the run it was meant to
// wait for has ended meanwhile (while the memory question was open).
func (rn *runner) enqueue(j *job) {
	rn.queue.Push(j)
	rn.startQueued()
}

// startGenerate validates the form and starts the generating goroutine.
func (rn *runner) startGenerate() (*runState, error) {
	if err := rn.sh.Writable(); err != nil {
		return nil, err
	}
	if rn.cur != nil {
		return nil, errBusy
	}
	if !rn.model.Usable() {
		rn.model.ShowDialog()
		return nil, modelui.ErrNoModel
	}
	f, ok := rn.form.ReadForm()
	if !ok {
		return nil, jobs.ErrInvalidForm
	}
	j := rn.jobFromForm(f)
	if !f.SeedGiven {
		rn.form.UsedRandomSeed(j.Req.Seed)
	}
	rn.sh.Settings = rn.form.CurrentSettings(f)
	rn.sh.Remember(rn.sh.Settings)
	return rn.startJob(j)
}

// startQueued starts the next queued job when nothing runs and the queue is not paused
// (UI goroutine).
func (rn *runner) startQueued() {
	if rn.cur != nil || rn.sh.Life.Err() != nil || len(rn.queue.Jobs) == 0 || rn.queue.Paused {
		return
	}
	if !rn.model.Usable() {
		rn.queue.SetPaused(true) // the jobs wait until a model is chosen and Resume is pressed
		return
	}
	_, err := rn.startJob(rn.queue.Pop())
	rn.reportStartError(err)
}

// resumeQueue goes on with a paused queue (its Resume button): the next job starts now,
// or when the running one ends. Without a usable model it asks for one first.
func (rn *runner) resumeQueue() {
	if !rn.model.Usable() {
		rn.model.ShowDialog()
		return
	}
	rn.queue.SetPaused(false)
	rn.startQueued()
}

// startJob starts the generating goroutine for j (UI goroutine).
func (rn *runner) startJob(j *job) (*runState, error) {
	if err := rn.sh.Writable(); err != nil {
		return nil, err
	}
	if rn.cur != nil {
		return nil, errBusy
	}
	if !rn.model.Usable() {
		return nil, modelui.ErrNoModel
	}
	ctx, cancel := context.WithCancel(rn.sh.Life)
	r := &runState{job: j, cancel: cancel, done: make(chan struct{}), outcome: make(chan runOutcome, 1), start: time.Now()}
	r.began = r.start
	rn.cur = r
	rn.saveQueue() // the running job stays in the file until it ends
	rn.view.SetFollowRun(true)
	// Passing messages (a seed locked, settings restored) belong to before the run.
	rn.sh.SetStatus("")
	rn.hideBatch()
	rn.view.SetImage(nil) // the previews replace it
	rn.setRunning(true)
	rn.showProgress(r, engine.Progress{Phase: engine.PhaseLoading})
	rn.view.Update()
	r.device = rn.model.EffectiveDevice()
	r.precision = rn.model.RunPrecision()
	r.gpuName = rn.model.GpuBackendOf(r.device)
	rn.sh.BG.Add(2)
	go rn.execute(ctx, r, rn.model.RunModel(), rn.model.ModelInfo(), rn.softwareVersion())
	go rn.tick(r)
	return r, nil
}

// softwareVersion is the version written into the images' metadata.
func (rn *runner) softwareVersion() string {
	if rn.version != "" {
		return rn.version
	}
	return "dev"
}

// Cancel stops the running generation.
func (u *UI) Cancel() { u.run.cancel() }

// cancel is Cancel.
func (rn *runner) cancel() {
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
func (rn *runner) generatorFor(mdl modelui.RunModel, device string) (Generator, error) {
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
	g, err := rn.open(mdl.Src, device)
	if err != nil {
		return nil, fmt.Errorf("the model could not be opened: %w", err)
	}
	rn.gen, rn.genDir, rn.genDevice = g, mdl.Key, device
	rn.loadMeasured(g, mdl, modelui.DeviceID(device), time.Since(start))
	return g, nil
}

// execute runs on its own goroutine: generate each image of the job, save it to the
// gallery as it is done, report back.
func (rn *runner) execute(ctx context.Context, r *runState, mdl modelui.RunModel, info engine.ModelInfo, version string) {
	defer rn.sh.BG.Done()
	defer close(r.done)
	defer r.cancel()
	var saved []gallery.Entry
	finish := func(out runOutcome, img image.Image) {
		out.entries = saved
		if len(saved) > 0 && !out.saved {
			out.entry = saved[len(saved)-1]
		}
		rn.sh.Post(func() { rn.finishRun(r, out, img) })
	}
	if err := jobs.Check(r.job.Req); err != nil {
		finish(runOutcome{err: err, jobFailed: true}, nil)
		return
	}
	adapters, err := withMissingAdapters(r.job)
	if err != nil {
		finish(runOutcome{err: err, jobFailed: true}, nil)
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
			finish(runOutcome{err: err, refFailed: true}, nil)
			return
		}
		if err := sums.Add(p); err != nil {
			finish(runOutcome{err: fmt.Errorf("reference image %s cannot be read: %w", filepath.Base(p), errors.Unwrap(err)), refFailed: true}, nil)
			return
		}
	}
	inputs := []string{r.job.Req.Image, r.job.Req.Mask}
	for _, a := range adapters {
		inputs = append(inputs, a.Adapter.Path)
	}
	if err := sums.Add(inputs...); err != nil {
		finish(runOutcome{err: fmt.Errorf("the image could not be described: %w", err), refFailed: true}, nil)
		return
	}
	if err := rn.tuneIfNeeded(ctx, r, r.device); err != nil {
		finish(runOutcome{err: err}, nil)
		return
	}
	rn.setActivity(r, "Loading the model…", 0)
	gen, err := rn.generatorFor(mdl, modelui.WithPrecision(r.device, r.precision))
	if err != nil {
		finish(runOutcome{err: err, gpuFailed: modelui.DeviceFailure(err, nil, r.gpuName)}, nil)
		return
	}
	var indexErr error
	var lastImg image.Image
	for i := range r.job.Count {
		if ctx.Err() != nil {
			finish(runOutcome{err: context.Canceled}, nil)
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
	out := runOutcome{saved: true, err: indexErr}
	if len(saved) > 0 {
		out.entry = saved[len(saved)-1]
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
func (rn *runner) makeImage(ctx context.Context, r *runState, gen Generator, req engine.Request, sums engine.Sums, info engine.ModelInfo, version string) (savedImage, image.Image, *runOutcome) {
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
		return savedImage{}, nil, &runOutcome{err: err, gpuFailed: modelui.DeviceFailure(err, gen, r.gpuName)}
	}
	// The same metadata as the command line writes: absolute reference paths, UTC, version.
	meta, err := engine.Metadata(info, req, sums, res, version, time.Since(start))
	if err != nil {
		return savedImage{}, res.Image, &runOutcome{err: fmt.Errorf("the image could not be described: %w", err), refFailed: true}
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
		return savedImage{}, nil, &runOutcome{err: context.Canceled} // shutting down before the gallery has loaded
	}
	g := rn.sh.Gallery
	if g == nil {
		return savedImage{}, res.Image, &runOutcome{err: errors.New("the image could not be saved because the gallery folder is unavailable")}
	}
	e, err := g.Add(res.Image, meta)
	if e.File == "" {
		return savedImage{}, res.Image, &runOutcome{err: err}
	}
	// A missing thumbnail is made again from the PNG when needed.
	_ = rn.sh.Thumbs.Put(e.SHA256, res.Image)
	return savedImage{Entry: e, indexErr: err, timings: res.Timings}, res.Image, nil
}

// startImage switches the progress display to image i of the run (UI goroutine).
func (rn *runner) startImage(r *runState, i int) {
	r.index = i
	r.tracker = progress.Tracker{}
	r.start = time.Now()
	rn.planImage(r)
	rn.refreshProgress(r)
}

// imageDone takes an image of the run that has been saved (UI goroutine): it shows in the
// gallery at once, and in the run's grid when the run makes several.
func (rn *runner) imageDone(r *runState, e gallery.Entry, indexErr error) {
	r.entries = append(r.entries, e)
	rn.saveQueue() // the images made are not made again after a restart
	rn.gal.Refresh()
	rn.gal.NoteNew(e.File) // says so when the gallery's filter hides it
	if indexErr != nil {
		rn.sh.ShowError(indexErr)
	}
	if r.job.Count > 1 && rn.cur == r {
		rn.showBatch(r.entries)
		rn.sh.SetStatus(fmt.Sprintf("Image %d of %d saved as %s", len(r.entries), r.job.Count, e.File))
	}
}

// tickInterval is how often the elapsed time and estimate refresh between reports.
const tickInterval = 250 * time.Millisecond

// tick keeps the progress line's clock running while r is in progress.
func (rn *runner) tick(r *runState) {
	defer rn.sh.BG.Done()
	t := time.NewTicker(tickInterval)
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
func (rn *runner) showProgress(r *runState, p engine.Progress) {
	if rn.cur != r {
		return
	}
	if !r.tracker.HasPlan() { // the estimate may have come (the calibration) since the image started
		rn.planImage(r)
	}
	r.tracker.Update(p, time.Since(r.start))
	if p.Preview != nil && rn.view.FollowsRun() {
		rn.view.SetImage(p.Preview)
		rn.view.Update()
	}
	rn.refreshProgress(r)
}

// refreshProgress redraws the progress bar and line (UI goroutine).
func (rn *runner) refreshProgress(r *runState) {
	if rn.cur != r {
		return
	}
	frac, text := r.tracker.Status(time.Since(r.start))
	if r.cancelling {
		text = "Cancelling…"
	}
	rn.view.ShowProgress(frac, text) // the run's, "Image i of n" in a run of several
	rn.notify.Progress(frac)
}

// planImage gives r's tracker its image's phase times and place in the run (time left
// from the measured phase times, the run's in a run of several).
func (rn *runner) planImage(r *runState) {
	r.tracker.SetPlan(rn.fit.PhasePlan(r.job, r.index == 0))
	r.tracker.InRun(r.index, r.job.Count, r.start.Sub(r.began), rn.fit.PhasePlan(r.job, false))
}

// finishRun shows how a generation ended (UI goroutine) and starts the next queued job.
func (rn *runner) finishRun(r *runState, out runOutcome, img image.Image) {
	if rn.cur == r {
		rn.cur = nil
	}
	rn.setRunning(false)
	defer rn.startQueued()
	defer func() { r.outcome <- out }()
	defer rn.jobEnded(r.job, out)
	defer func() { rn.notify.Finished(finishedText(out, r.job.Count)) }()
	defer rn.saveQueue()
	n := len(out.entries)
	switch {
	case errors.Is(out.err, context.Canceled):
		if n == 0 {
			rn.sh.SetStatus("Generation cancelled.")
			rn.leaveRun()
			return
		}
		rn.showRunImages(r, out.entries, nil)
		rn.sh.SetStatus(fmt.Sprintf("Cancelled after %d of %d images; the finished ones are in the gallery.", n, r.job.Count))
		return
	case out.err != nil && !out.saved:
		if out.pausesQueue() && len(rn.queue.Jobs) > 0 {
			// The next jobs would fail the same way: they wait for the user's Resume.
			rn.queue.SetPaused(true)
		}
		if out.gpuFailed {
			rn.model.FallBackToCPU(out.err.Error())
		} else {
			topic := shell.TopicRun
			if out.refFailed {
				topic = shell.TopicRefs
			}
			rn.sh.ShowErrorAbout(topic, fmt.Errorf("generation failed: %w", out.err))
		}
		if img != nil {
			// Made but not saved: the image stays on screen, without a gallery caption.
			rn.view.SetImage(img)
			rn.view.SetFollowRun(true)
			rn.view.Update()
			return
		}
		if n > 0 {
			rn.showRunImages(r, out.entries, nil)
			return
		}
		rn.leaveRun()
		return
	case out.err != nil:
		rn.sh.ShowError(out.err)
	}
	if out.err == nil {
		// A good run settles what earlier failures were about.
		rn.sh.ClearBanner(shell.TopicModel, shell.TopicRefs, shell.TopicRun)
	}
	if n == 0 {
		rn.leaveRun()
		return
	}
	rn.showRunImages(r, out.entries, img)
	if n == 1 {
		rn.sh.SetStatus(fmt.Sprintf("Done in %s · saved as %s", humanize.Duration(out.entry.Meta.Duration), out.entry.File))
	} else {
		rn.sh.SetStatus(fmt.Sprintf("Done: %d images in %s, saved in the gallery. Pick one in the grid.", n, humanize.Duration(time.Since(r.began))))
	}
}

// showRunImages shows the images a run saved: a single one in the viewer; several as a
// grid to pick from, with the first in the viewer. last is the last image decoded, if at
// hand.
func (rn *runner) showRunImages(r *runState, entries []gallery.Entry, last image.Image) {
	rn.view.SetFollowRun(false)
	rn.gal.Refresh()
	if r.job.Count > 1 {
		rn.gal.SelectEntry(entries[0].File, nil)
		rn.showBatch(entries)
		return
	}
	rn.gal.SelectEntry(entries[len(entries)-1].File, last)
}

// leaveRun takes the viewer off a run that ended without an image: the gallery image that
// was selected before shows again with its caption and buttons, or the empty state when
// there was none (or it has gone), so the viewer never shows a stale preview under another
// image's caption.
func (rn *runner) leaveRun() {
	if !rn.view.FollowsRun() {
		rn.view.Update() // the user had moved on to a gallery image; it is still shown
		return
	}
	rn.view.SetFollowRun(false)
	if e, ok := rn.view.ShownEntry(); ok && rn.sh.Gallery != nil && rn.sh.Gallery.IndexOf(e.File) >= 0 {
		rn.gal.SelectEntry(e.File, nil)
		return
	}
	rn.view.ClearShown()
}

// setRunning switches the widgets that follow the run (the main button, the progress
// display, Add to queue, the model button) between idle and running.
func (rn *runner) setRunning(running bool) {
	r := rn.cur
	phase := jobs.Running
	switch {
	case !running || r == nil:
		phase = jobs.Idle
	case r.cancelling:
		phase = jobs.Cancelling
	}
	if phase != jobs.Idle {
		rn.queue.Add.Show()
	} else {
		rn.queue.Add.Hide()
	}
	rn.phaseChanged(phase)
}

// busy reports whether a generation runs.
func (rn *runner) busy() bool { return rn.cur != nil }
