package app

import (
	"kleinbild/app/chooser"
	"kleinbild/app/galleryui"
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
	running, estimateSoon := u.run.busy, u.fit.updateSoon

	u.ctl = controls{sh: sh, controlsDeps: controlsDeps{
		onGenerate: u.Generate, onCancel: u.Cancel, busy: running, estimateSoon: estimateSoon,
		model: &u.model, refs: &u.refs, restoreAdapters: u.adapters.RestoreFromImage, shown: u.view.ShownEntry,
	}}
	u.fit = fitLine{sh: sh, calibrate: u.opts.calibrate, fitDeps: fitDeps{
		form: &u.ctl, refs: u.refs.RefPaths, adapters: u.adapters.Stack,
		shapesChanged: u.adapters.SetModel, chosen: &u.model, loaded: u.run.modelLoaded,
		relayout: func() { u.ctl.box.Refresh() }, busy: running, useCPU: u.model.UseCPU,
	}}
	u.refs = inputs.NewRefs(sh, inputs.RefsDeps{
		EstimateSoon: estimateSoon, ShowAdded: u.ctl.scrollToEnd, RestoreSettings: u.RestoreSettings,
	})
	u.adapters = inputs.NewAdapters(sh, inputs.AdaptersDeps{EstimateSoon: estimateSoon, FormChanged: u.ctl.formChanged})
	u.view = galleryui.NewViewer(sh, galleryui.ViewerDeps{
		Running: running, ModelUsable: u.model.Usable, MarkBatch: u.run.markBatch, BatchStep: u.run.batchStep, Gal: &u.gal,
		ReuseSettings: u.reuseSettings, ReuseSeed: u.ReuseSeed, AddReference: u.AddReference,
		RenderLarger: u.RenderLarger, ShowInpaint: u.showInpaint,
		ShowModelDialog: u.ShowModelDialog, DownloadPanel: u.model.NewDownloadPanel, SaveAs: u.saveAs,
	})
	u.gal = galleryui.NewView(sh, galleryui.GalleryDeps{
		View: &u.view, Running: running, RestoreSettings: u.RestoreSettings,
		RenderLarger: u.run.renderLargerEntry, AddReference: u.AddReference, ListChanged: u.run.syncBatch,
	})
	u.model = modelui.New(sh, u.opts.devices, modelui.Deps{
		Busy: running, DeviceChanged: estimateSoon,
		Changed: func(info engine.ModelInfo, usable bool) {
			u.ctl.applyVariant(info, usable)
			u.fit.setModel()
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
			u.ctl.showRunPhase(p)
			u.view.ShowRunPhase(p)
			u.model.ShowRunPhase(p == jobs.Idle)
			u.quitRunPhase(p)
			if p == jobs.Idle {
				u.fit.updateSoon() // a calibration that waited for the run
			}
		},
	}}
}
