package app

import (
	"fmt"
	"image"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kleinbild/app/inpaintui"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// showInpaint opens Inpaint mode for the picture img read from path.
func (u *UI) showInpaint(path string, img image.Image) *inpaintui.Mode {
	return inpaintui.Open(u.Shell, inpaintui.Deps{ReadForm: u.ctl.inpaintForm, SeedIsLocked: u.ctl.seedIsLocked,
		Adapters: u.adapters.Stack, AdaptersPartial: u.adapters.Partial, Submit: u.run.submit,
		FormPrompt:     func() string { return strings.TrimSpace(u.ctl.prompt.Text) },
		FillFormPrompt: u.ctl.prompt.SetText,
		WhenDone:       u.inpaintResults, JobState: u.inpaintJobState, CancelJob: u.cancelInpaintJob}, path, img)
}

// inpaintForm is the form as Inpaint mode takes it (readForm).
func (c *controls) inpaintForm() (inpaintui.Form, bool) {
	f, ok := c.ReadForm()
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
	u.ctl.restoreRequest(form, func() { u.ctl.restoreAdapters(meta.Adapters) })
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
func (u *UI) inpaintResults(j *job, done func(path string)) {
	u.run.whenJobEnds(j, func(out runOutcome) {
		if len(out.entries) > 0 && u.Gallery != nil {
			done(u.Gallery.Path(out.entries[len(out.entries)-1]))
		}
	})
}

// whenJobEnds calls done with the outcome when j's run ends, however it ends (UI
// goroutine). What was registered for jobs that left the queue without running is
// forgotten here and when a run ends.
func (rn *runner) whenJobEnds(j *job, done func(runOutcome)) {
	rn.forgetDroppedJobs()
	if rn.afterJob == nil {
		rn.afterJob = map[*job]func(runOutcome){}
	}
	rn.afterJob[j] = done
}

// jobEnded calls what whenJobEnds registered for j, once.
func (rn *runner) jobEnded(j *job, out runOutcome) {
	done, ok := rn.afterJob[j]
	delete(rn.afterJob, j)
	rn.forgetDroppedJobs()
	if ok {
		done(out)
	}
}

// forgetDroppedJobs drops what whenJobEnds registered for jobs that are neither queued nor
// running: removed, cancelled or opened back into the form, they will never end.
func (rn *runner) forgetDroppedJobs() {
	for j := range rn.afterJob {
		running := rn.cur != nil && rn.cur.job == j
		if !running && !slices.Contains(rn.queue.Jobs, j) {
			delete(rn.afterJob, j)
		}
	}
}

// inpaintNotRestored is what restoring req into the form leaves out when req repainted a
// picture ("" when it did not): the form holds no picture, mask or strength (issue 36
// item 24: restoring an Inpaint result's settings silently brought back only part of
// them). The viewer's Reuse settings restores them in the Inpaint window (reuseInpaint).
func inpaintNotRestored(req engine.Request) string {
	if req.Image == "" {
		return ""
	}
	what := "the inpainting (the repainted picture, its mask and strength"
	if !engine.PaddingOf(req.Outpaint).IsZero() {
		what = "the outpainting (the extended picture, its extension and strength"
	}
	return fmt.Sprintf("not %s %.2f), which the form does not hold: open %s and use Reuse settings in the viewer to repaint it in Inpaint",
		what, req.Strength, filepath.Base(req.Image))
}

// inpaintJobState is Inpaint mode's jobState.
func (u *UI) inpaintJobState(j *job) inpaintui.JobState {
	if r := u.run.cur; r != nil && r.job == j {
		frac, text := r.tracker.Status(time.Since(r.start))
		if r.cancelling {
			text = "Cancelling…"
		}
		return inpaintui.JobState{Running: true, Frac: frac, Text: text}
	}
	return inpaintui.JobState{Queued: slices.Contains(u.run.queue.Jobs, j)}
}

// cancelInpaintJob is Inpaint mode's Cancel: it stops j while it runs, or takes it out
// of the queue while it waits.
func (u *UI) cancelInpaintJob(j *job) {
	if r := u.run.cur; r != nil && r.job == j {
		u.run.cancel()
		return
	}
	u.run.queue.Remove(j)
}
