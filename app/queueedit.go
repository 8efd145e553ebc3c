package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"kleinbild/engine/lora"
)

// openJob is a queued job's Edit: it takes j out of the queue and puts its settings into
// the form the way Reuse settings does (controls.restoreRequest: prompt, size, steps,
// guidance, schedule, noise, the seed locked, the references), with its image count and
// its adapters at their strengths (the job holds them opened; the others are switched
// off). Adapters that could not be opened when a kept queue was read are named.
func (u *UI) openJob(j *job) {
	if j.Req.Mode() != "" {
		return // inpainting: the form does not hold the picture and mask
	}
	u.run.queue.Remove(j)
	u.ctl.restoreRequest(j.Req, func() {
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
	u.ctl.setCount(j.Count)
}
