package run

import (
	"kleinbild/app/imagefile"
	"kleinbild/app/modelui"

	"errors"
	"fmt"
	"math"
	"strings"

	"kleinbild/app/gallery"
	"kleinbild/app/jobs"
	"kleinbild/app/shell"
	"kleinbild/engine"
)

// largerSize is the size "Render larger" renders a w×h image at: twice the area, the
// aspect ratio kept, each side a multiple of engine.SizeMultiple and at most engine.MaxSidePx. ok is false when the
// image is already as large as that allows.
func largerSize(w, h int) (nw, nh int, ok bool) {
	if w <= 0 || h <= 0 {
		return 0, 0, false
	}
	fw, fh := float64(w)*math.Sqrt2, float64(h)*math.Sqrt2
	if m := max(fw, fh); m > engine.MaxSidePx {
		fw, fh = fw*engine.MaxSidePx/m, fh*engine.MaxSidePx/m
	}
	round := func(v float64) int {
		return min(max(int(math.Round(v/engine.SizeMultiple))*engine.SizeMultiple, engine.MinSidePx), engine.MaxSidePx)
	}
	nw, nh = round(fw), round(fh)
	if nw*nh <= w*h {
		return w, h, false
	}
	return nw, nh, true
}

// errNotLarger means the image is at the largest size already.
var errNotLarger = errors.New("this image is already at the largest size Kleinbild makes")

// renderLargerJob is the job that renders the gallery image e again at a larger size:
// the request that made it (engine.MetadataRequest: prompt, seed, steps, guidance,
// schedule, noise, …) as a text-to-image request at the larger size, with the image
// itself as an in-context reference first and its own references that still exist after it.
func (rn *Runner) renderLargerJob(e gallery.Entry) (*jobs.Job, error) {
	if rn.sh.Gallery == nil || !e.HasMeta {
		return nil, errors.New("this image has no Kleinbild settings, so it cannot be rendered again")
	}
	m := e.Meta
	if len(m.Adapters) > 0 {
		// Rendering without them would make another picture; bringing them back is
		// Reuse settings' job (it finds the files by hash and says which are missing).
		names := make([]string, len(m.Adapters))
		for i, a := range m.Adapters {
			names[i] = a.File
		}
		return nil, fmt.Errorf("this image was made with adapters (%s): press Reuse settings to bring them back, then Generate at the larger size", strings.Join(names, ", "))
	}
	w, h, ok := largerSize(m.Width, m.Height)
	if !ok {
		return nil, errNotLarger
	}
	req := engine.MetadataRequest(m)
	refs := []string{rn.sh.Gallery.Path(e)}
	for _, r := range req.References {
		if len(refs) >= engine.MaxReferences {
			break
		}
		if imagefile.CheckReference(r) == nil { // still there and usable
			refs = append(refs, r)
		}
	}
	req.Width, req.Height, req.References = w, h, refs
	if rn.Model.ModelInfo().Distilled || engine.ValidateGuidance(req.Guidance) != nil {
		req.Guidance = 0 // the model's default
	}
	// The larger image is made from the whole picture, not by repainting part of it.
	req.Image, req.Mask, req.Strength, req.MaskCrop, req.RawUnmasked, req.Outpaint = "", "", 0, 0, false, nil
	return jobs.New(req, 1), nil
}

// RenderLarger re-renders the image in the viewer at a larger size (see renderLargerJob):
// at once when nothing runs, otherwise after the queued jobs.
func (rn *Runner) RenderLarger() {
	if e, ok := rn.View.ShownEntry(); ok {
		rn.RenderLargerEntry(e)
	}
}

// RenderLargerEntry re-renders the gallery image e at a larger size, whatever the viewer
// shows: at once when nothing runs, otherwise after the queued jobs.
func (rn *Runner) RenderLargerEntry(e gallery.Entry) {
	j, err := rn.renderLargerJob(e)
	if err != nil {
		rn.sh.ShowNotice(shell.Sentence(err.Error()) + ".")
		return
	}
	if rn.cur != nil {
		rn.Fit.ConfirmJob(j, "Queue", func() {
			rn.sh.SetStatus(fmt.Sprintf("Queued: %s rendered at %d × %d.", e.File, j.Req.Width, j.Req.Height))
			rn.enqueue(j) // starts it (and clears the line) if the run has ended meanwhile
		})
		return
	}
	rn.Fit.ConfirmJob(j, "Generate", func() {
		if rn.cur != nil { // another run started while the question was open
			rn.enqueue(j)
			return
		}
		if _, err := rn.startJob(j); err != nil {
			rn.reportStartError(err)
			if errors.Is(err, modelui.ErrNoModel) {
				rn.Model.ShowDialog()
			}
		}
	})
}
