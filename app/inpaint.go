package app

import (
	"fmt"
	"image"
	"slices"
	"strings"

	"kleinbild/app/inpaintui"
	"kleinbild/app/jobs"
	"kleinbild/app/run"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// showInpaint opens Inpaint mode for the picture img read from path.
func (u *UI) showInpaint(path string, img image.Image) *inpaintui.Mode {
	return inpaintui.Open(u.Shell, inpaintui.Deps{ReadForm: u.inpaintForm, SeedIsLocked: u.ctl.SeedIsLocked,
		Adapters: u.adapters.Stack, AdaptersPartial: u.adapters.Partial, Submit: u.run.Submit,
		FormPrompt:     func() string { return strings.TrimSpace(u.ctl.Prompt.Text) },
		FillFormPrompt: u.ctl.Prompt.SetText,
		WhenDone:       u.inpaintResults, JobState: u.inpaintJobState, CancelJob: u.cancelInpaintJob}, path, img)
}

// inpaintForm is the form as Inpaint mode takes it (form.Controls.ReadForm).
func (u *UI) inpaintForm() (inpaintui.Form, bool) {
	f, ok := u.ctl.ReadForm()
	return inpaintui.Form{Settings: f.Settings, SeedGiven: f.SeedGiven}, ok
}

// reuseSettings is the viewer's Reuse settings: Inpaint mode for an inpainted or
// outpainted image (reuseInpaint), else the form's settings.
func (u *UI) reuseSettings(meta imageio.Metadata) {
	if _, ok := u.reuseInpaint(meta); !ok {
		u.RestoreSettings(meta)
	}
}

// reuseInpaint is "Reuse settings" for an inpainted or outpainted image (ok false for any
// other): the form's settings, then Inpaint mode on the picture it repainted with its mask
// (or its outpainting) and strength restored. It returns the mode, nil when the picture or
// the mask cannot be read (the error is shown).
func (u *UI) reuseInpaint(meta imageio.Metadata) (m *inpaintui.Mode, ok bool) {
	req := engine.MetadataRequest(meta)
	if req.Image == "" {
		return nil, false
	}
	img, err := imageio.Load(req.Image)
	if err != nil {
		u.RestoreSettings(meta) // the form's part, saying what it leaves out
		u.ShowError(fmt.Errorf("the repainted picture: %w", err))
		return nil, true
	}
	// The form takes the rest of the settings; the Inpaint window the picture, its mask
	// (or extension) and strength.
	form := req
	form.Image, form.Mask, form.Strength, form.Outpaint = "", "", 0, nil
	u.ctl.RestoreRequest(form, func() { u.ctl.RestoreAdapters(meta.Adapters) })
	var mask []uint8
	b := img.Bounds()
	if req.Mask != "" {
		raw, err := imageio.Load(req.Mask)
		var p imageio.Pillow
		if err == nil {
			p, err = imageio.NewPillow(raw)
		}
		if err != nil {
			u.ShowError(fmt.Errorf("the mask: %w", err))
			return nil, true
		}
		mask = p.Resize(b.Dx(), b.Dy()).L()
	}
	m = u.showInpaint(req.Image, img)
	m.Restore(mask, req.Padding(), req.Strength)
	return m, true
}

// inpaintResults is Inpaint mode's whenDone: done gets the gallery file of the last image
// j saved, once its run ends with one.
func (u *UI) inpaintResults(j *jobs.Job, done func(path string)) {
	u.run.WhenJobEnds(j, func(out run.Outcome) {
		if len(out.Entries) > 0 && u.Gallery != nil {
			done(u.Gallery.Path(out.Entries[len(out.Entries)-1]))
		}
	})
}

// inpaintJobState is Inpaint mode's jobState.
func (u *UI) inpaintJobState(j *jobs.Job) inpaintui.JobState {
	if r := u.run.Current(); r != nil && r.Job() == j {
		frac, text := r.Status()
		return inpaintui.JobState{Running: true, Frac: frac, Text: text}
	}
	return inpaintui.JobState{Queued: slices.Contains(u.run.Queue.Jobs, j)}
}

// cancelInpaintJob is Inpaint mode's Cancel: it stops j while it runs, or takes it out
// of the queue while it waits.
func (u *UI) cancelInpaintJob(j *jobs.Job) {
	if r := u.run.Current(); r != nil && r.Job() == j {
		u.run.Cancel()
		return
	}
	u.run.Queue.Remove(j)
}
