package jobqueue

import (
	"slices"

	"fyne.io/fyne/v2/theme"

	"kleinbild/app/jobs"
	"kleinbild/app/widgets"
)

// moveButtons are the ↑ and ↓ of the queue's row i (job j): ↑ is disabled on the first
// row and ↓ on the last.
func (q *Queue) moveButtons(i int, j *jobs.Job) (up, down *widgets.TipButton) {
	up = widgets.NewTipButton(q.tips, theme.MoveUpIcon(), "Run earlier", func() { q.move(j, -1) })
	down = widgets.NewTipButton(q.tips, theme.MoveDownIcon(), "Run later", func() { q.move(j, +1) })
	if i == 0 {
		up.Disable()
	}
	if i == len(q.Jobs)-1 {
		down.Disable()
	}
	return up, down
}

// move moves j by delta places (−1 earlier, +1 later) within the queue.
func (q *Queue) move(j *jobs.Job, delta int) {
	for i, x := range q.Jobs {
		if x != j {
			continue
		}
		k := i + delta
		if k < 0 || k >= len(q.Jobs) {
			return
		}
		q.Jobs[i], q.Jobs[k] = q.Jobs[k], q.Jobs[i]
		q.refresh()
		return
	}
}

// Clear empties the queue.
func (q *Queue) Clear() {
	q.Jobs = nil
	q.refresh()
}

// openButton is the Edit of j's row: it opens j back into the form (OnOpen). Inpainting
// jobs, whose picture and mask the form does not hold, stay in the queue.
func (q *Queue) openButton(j *jobs.Job) *widgets.TipButton {
	b := widgets.NewTipButton(q.tips, theme.DocumentCreateIcon(), "Edit: open in the form (takes it out of the queue)", func() {
		if q.OnOpen != nil && slices.Contains(q.Jobs, j) {
			q.OnOpen(j)
		}
	})
	if q.OnOpen == nil || j.Req.Mode() != "" {
		b.Disable()
	}
	return b
}
