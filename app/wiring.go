package app

import (
	"kleinbild/app/chooser"
	"kleinbild/app/form"
	"kleinbild/app/inputs"
	"kleinbild/app/jobs"
	"kleinbild/app/modelui"

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
	running, estimateSoon := u.run.busy, u.fit.UpdateSoon

	u.ctl = form.NewControls(sh, form.Deps{
		OnGenerate: u.Generate, OnCancel: u.Cancel, Busy: running, EstimateSoon: estimateSoon,
		Model: &u.model, Refs: &u.refs, RestoreAdapters: u.adapters.RestoreFromImage, Shown: u.view.ShownEntry,
	})
	u.fit = form.NewFitLine(sh, u.opts.calibrate, form.FitDeps{
		Form: &u.ctl, Refs: u.refs.RefPaths, Adapters: u.adapters.Stack,
		ShapesChanged: u.adapters.SetModel, Chosen: &u.model, Loaded: u.run.modelLoaded,
		Relayout: func() { u.ctl.Box.Refresh() }, Busy: running, UseCPU: u.model.UseCPU,
	})
	u.refs = inputs.NewRefs(sh, inputs.RefsDeps{
		EstimateSoon: estimateSoon, ShowAdded: u.ctl.ScrollToEnd, RestoreSettings: u.RestoreSettings,
	})
	u.adapters = inputs.NewAdapters(sh, inputs.AdaptersDeps{EstimateSoon: estimateSoon, FormChanged: u.ctl.FormChanged})
	u.view = viewer{sh: sh, viewerDeps: viewerDeps{
		running: running, modelUsable: u.model.Usable, markBatch: u.run.markBatch, batchStep: u.run.batchStep, gal: &u.gal,
		reuseSettings: u.reuseSettings, reuseSeed: u.ReuseSeed, addReference: u.AddReference,
		renderLarger: u.RenderLarger, showInpaint: u.showInpaint,
		showModelDialog: u.ShowModelDialog, downloadPanel: u.model.NewDownloadPanel,
	}}
	u.gal = galleryView{sh: sh, galleryDeps: galleryDeps{
		view: &u.view, running: running, restoreSettings: u.RestoreSettings,
		renderLarger: u.run.renderLargerEntry, addReference: u.AddReference, listChanged: u.run.syncBatch,
	}}
	u.model = modelui.New(sh, u.opts.devices, modelui.Deps{
		Busy: running, DeviceChanged: estimateSoon,
		Changed: func(info engine.ModelInfo, usable bool) {
			u.ctl.ApplyVariant(info, usable)
			u.fit.SetModel()
			u.view.Update()
		},
		BrowseFolder: func(title, start string, set func(string)) { chooser.BrowseFolder(sh, title, start, set) },
		BrowseWeightFile: func(start string, set func(string)) {
			chooser.BrowseWeightFile(sh, start, modelui.IsWeightFile, set)
		},
	})
	open := modelui.EngineOpener(filepath.Join(u.DataDir, "cache", "prompts"))
	tuner := deviceTuner{needs: backends.DefaultNeedsTuning, tune: backends.DefaultTuned}
	if u.opts.Open != nil {
		open = modelui.FolderOpener(u.opts.Open)
		tuner = deviceTuner{} // a generator of the caller's (tests): no device to tune
	}
	notifier := notify.New(u.App, u.Win, func(fn func()) { u.Post(fn) }) // u.post is set later
	u.run = runner{sh: sh, version: u.opts.Version, open: open, tuner: tuner, notify: notifier, runnerDeps: runnerDeps{
		form: &u.ctl, refs: u.refs.RefPaths, adapters: &u.adapters, model: &u.model,
		fit: &u.fit, view: &u.view, gal: &u.gal,
		phaseChanged: func(p jobs.Phase) {
			u.ctl.ShowRunPhase(p)
			u.view.showRunPhase(p)
			u.model.ShowRunPhase(p == jobs.Idle)
			u.quitRunPhase(p)
			if p == jobs.Idle {
				u.fit.UpdateSoon() // a calibration that waited for the run
			}
		},
	}}
}
