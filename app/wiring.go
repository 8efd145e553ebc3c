package app

import (
	"kleinbild/app/chooser"
	"kleinbild/app/form"
	"kleinbild/app/galleryui"
	"kleinbild/app/inputs"
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
	running, estimateSoon := u.run.Busy, u.fit.UpdateSoon

	u.ctl = form.NewControls(sh, form.Deps{
		OnGenerate: u.Generate, OnCancel: u.Cancel, Busy: running, EstimateSoon: estimateSoon,
		Model: &u.model, Refs: &u.refs, RestoreAdapters: u.adapters.RestoreFromImage, Shown: u.view.ShownEntry,
	})
	u.fit = form.NewFitLine(sh, u.opts.calibrate, form.FitDeps{
		Form: &u.ctl, Refs: u.refs.RefPaths, Adapters: u.adapters.Stack,
		ShapesChanged: u.adapters.SetModel, Chosen: &u.model, Loaded: u.run.ModelLoaded,
		Relayout: func() { u.ctl.Box.Refresh() }, Busy: running, UseCPU: u.model.UseCPU,
	})
	u.refs = inputs.NewRefs(sh, inputs.RefsDeps{
		EstimateSoon: estimateSoon, ShowAdded: u.ctl.ScrollToEnd, RestoreSettings: u.RestoreSettings,
	})
	u.adapters = inputs.NewAdapters(sh, inputs.AdaptersDeps{EstimateSoon: estimateSoon, FormChanged: u.ctl.FormChanged})
	u.view = galleryui.NewViewer(sh, galleryui.ViewerDeps{
		Running: running, ModelUsable: u.model.Usable, MarkBatch: u.run.MarkBatch, BatchStep: u.run.BatchStep, Gal: &u.gal,
		ReuseSettings: u.reuseSettings, ReuseSeed: u.ReuseSeed, AddReference: u.AddReference,
		RenderLarger: u.RenderLarger, ShowInpaint: u.showInpaint,
		ShowModelDialog: u.ShowModelDialog, DownloadPanel: u.model.NewDownloadPanel, SaveAs: u.saveAs,
	})
	u.gal = galleryui.NewView(sh, galleryui.GalleryDeps{
		View: &u.view, Running: running, RestoreSettings: u.RestoreSettings,
		RenderLarger: u.run.RenderLargerEntry, AddReference: u.AddReference, ListChanged: u.run.SyncBatch,
	})
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
			u.ctl.ShowRunPhase(p)
			u.view.ShowRunPhase(p)
			u.model.ShowRunPhase(p == jobs.Idle)
			u.quitRunPhase(p)
			if p == jobs.Idle {
				u.fit.UpdateSoon() // a calibration that waited for the run
			}
		},
	})
}
