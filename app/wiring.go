package app

import (
	"kleinbild/app/jobs"
	"kleinbild/app/modelui"
	"kleinbild/app/run"

	"path/filepath"

	"kleinbild/app/notify"
	"kleinbild/engine"
	"kleinbild/gpu/backends"
)

// wire gives each component the shell and what it uses of the others, as narrow
// interfaces and function values: this is the one place where the components meet, and
// they keep no pointer to the UI. It runs first in newUI, on zero components; the runner
// also gets its generator opener (Options.Open, or the engine) here.
func (u *UI) wire() {
	sh := u.Shell
	// Asked by many: whether a generation runs, and for a new estimate.
	running, estimateSoon := u.run.Busy, u.fit.updateSoon

	u.ctl = controls{sh: sh, controlsDeps: controlsDeps{
		onGenerate: u.Generate, onCancel: u.Cancel, busy: running, estimateSoon: estimateSoon,
		model: &u.model, refs: &u.refs, restoreAdapters: u.adapters.restoreFromImage, shown: u.view.ShownEntry,
	}}
	u.fit = fitLine{sh: sh, calibrate: u.opts.calibrate, fitDeps: fitDeps{
		form: &u.ctl, refs: func() []string { return u.refs.paths }, adapters: u.adapters.Stack,
		shapesChanged: u.adapters.setModel, chosen: &u.model, loaded: u.run.ModelLoaded,
		relayout: func() { u.ctl.box.Refresh() }, busy: running, useCPU: u.model.UseCPU,
	}}
	u.refs = refsSection{sh: sh, estimateSoon: estimateSoon, showAdded: u.ctl.scrollToEnd}
	u.adapters = adaptersSection{sh: sh, estimateSoon: estimateSoon, formChanged: u.ctl.formChanged}
	u.view = viewer{sh: sh, viewerDeps: viewerDeps{
		running: running, modelUsable: u.model.Usable, markBatch: u.run.MarkBatch, batchStep: u.run.BatchStep, gal: &u.gal,
		reuseSettings: u.reuseSettings, reuseSeed: u.ReuseSeed, addReference: u.AddReference,
		renderLarger: u.RenderLarger, showInpaint: u.showInpaint,
		showModelDialog: u.ShowModelDialog, downloadPanel: u.model.NewDownloadPanel,
	}}
	u.gal = galleryView{sh: sh, galleryDeps: galleryDeps{
		view: &u.view, running: running, restoreSettings: u.RestoreSettings,
		renderLarger: u.run.RenderLargerEntry, addReference: u.AddReference, listChanged: u.run.SyncBatch,
	}}
	u.model = modelui.New(sh, u.opts.devices, modelui.Deps{
		Busy: running, DeviceChanged: estimateSoon,
		Changed: func(info engine.ModelInfo, usable bool) {
			u.ctl.applyVariant(info, usable)
			u.fit.setModel()
			u.view.Update()
		},
		BrowseFolder:     func(title, start string, set func(string)) { browseFolder(sh, title, start, set) },
		BrowseWeightFile: func(start string, set func(string)) { browseWeightFile(sh, start, set) },
	})
	open := modelui.EngineOpener(filepath.Join(u.DataDir, "cache", "prompts"))
	tuner := run.Tuner{Needs: backends.DefaultNeedsTuning, Tune: backends.DefaultTuned}
	if u.opts.Open != nil {
		open = modelui.FolderOpener(u.opts.Open)
		tuner = run.Tuner{} // a generator of the caller's (tests): no device to tune
	}
	notifier := notify.New(u.App, u.Win, func(fn func()) { u.Post(fn) }) // u.post is set later
	u.run = run.New(sh, run.Config{Version: u.opts.Version, Open: open, Tuner: tuner, Notify: notifier}, run.Deps{
		Form: &u.ctl, Refs: u.refs.RefPaths, Adapters: &u.adapters, Model: &u.model,
		Fit: &u.fit, View: &u.view, Gallery: &u.gal,
		PhaseChanged: func(p jobs.Phase) {
			u.ctl.showRunPhase(p)
			u.view.showRunPhase(p)
			u.model.ShowRunPhase(p == jobs.Idle)
			u.quitRunPhase(p)
			if p == jobs.Idle {
				u.fit.updateSoon() // a calibration that waited for the run
			}
		},
	})
}
