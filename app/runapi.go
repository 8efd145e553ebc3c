package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"kleinbild/app/jobs"
	"kleinbild/engine/lora"
)

// Generate starts a generation from the current settings (the Generate button and
// Ctrl/Cmd+Enter), or queues it while another runs. Invalid fields show their message and
// nothing starts.
func (u *UI) Generate() { u.run.Generate() }

// Cancel stops the running generation.
func (u *UI) Cancel() { u.run.Cancel() }

// RenderLarger re-renders the image in the viewer at a larger size: at once when nothing
// runs, otherwise after the queued jobs (run.Runner.RenderLarger).
func (u *UI) RenderLarger() { u.run.RenderLarger() }

// openJob is a queued job's Edit: it takes j out of the queue and puts its settings into
// the form the way Reuse settings does (form.Controls.RestoreRequest: prompt, size, steps,
// guidance, schedule, noise, the seed locked, the references), with its image count and
// its adapters at their strengths (the job holds them opened; the others are switched
// off). Adapters that could not be opened when a kept queue was read are named.
func (u *UI) openJob(j *jobs.Job) {
	if j.Req.Mode() != "" {
		return // inpainting: the form does not hold the picture and mask
	}
	u.run.Queue.Remove(j)
	u.ctl.RestoreRequest(j.Req, func() {
		var found []*lora.Adapter
		var strengths []float32
		for _, w := range j.Req.Adapters {
			found, strengths = append(found, w.Adapter), append(strengths, w.Strength)
		}
		u.adapters.UseOnly(found, strengths)
		if len(j.Missing) > 0 {
			var names []string
			for _, m := range j.Missing {
				names = append(names, filepath.Base(m.Path))
			}
			u.ShowNotice(fmt.Sprintf("The job's adapter(s) %s could not be opened and are not in the form.", strings.Join(names, ", ")))
		}
	})
	u.ctl.SetCount(j.Count)
}
