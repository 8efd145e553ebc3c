package app

import (
	"slices"

	"fyne.io/fyne/v2/theme"

	"kleinbild/app/widgets"
)

// moveButtons are the ↑ and ↓ of the queue's row i (job j): ↑ is disabled on the first
// row and ↓ on the last.
func (q *jobQueue) moveButtons(i int, j *job) (up, down *widgets.TipButton) {
	up = widgets.NewTipButton(q.tips, theme.MoveUpIcon(), "Run earlier", func() { q.move(j, -1) })
	down = widgets.NewTipButton(q.tips, theme.MoveDownIcon(), "Run later", func() { q.move(j, +1) })
	if i == 0 {
		up.Disable()
	}
	if i == len(q.jobs)-1 {
		down.Disable()
	}
	return up, down
}

// move moves j by delta places (−1 earlier, +1 later) within the queue.
func (q *jobQueue) move(j *job, delta int) {
	for i, x := range q.jobs {
		if x != j {
			continue
		}
		k := i + delta
		if k < 0 || k >= len(q.jobs) {
			return
		}
		q.jobs[i], q.jobs[k] = q.jobs[k], q.jobs[i]
		q.refresh()
		return
	}
}

// clear empties the queue.
func (q *jobQueue) clear() {
	q.jobs = nil
	q.refresh()
}

// openButton is the Edit of j's row: it opens j back into the form (onOpen). Inpainting
// jobs, whose picture and mask the form does not hold, stay in the queue.
func (q *jobQueue) openButton(j *job) *widgets.TipButton {
	b := widgets.NewTipButton(q.tips, theme.DocumentCreateIcon(), "Edit: open in the form (takes it out of the queue)", func() {
		if q.onOpen != nil && slices.Contains(q.jobs, j) {
			q.onOpen(j)
		}
	})
	if q.onOpen == nil || j.Req.Mode() != "" {
		b.Disable()
	}
	return b
}
