package app

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/jobs"
	"kleinbild/app/widgets"
)

// Limits of the images-per-run setting.
const (
	minCount = jobs.MinCount
	maxCount = jobs.MaxCount
)

// job is one generation waiting or running (package jobs).
type job = jobs.Job

// queueRow is one waiting job on screen.
type queueRow struct {
	job    *job
	label  *widget.Label
	remove *widgets.TipButton
}

// jobQueue holds the jobs lined up behind the running one and shows them under the
// Generate button, each with a ✕ to take it out. The jobs are lost when the app closes.
// After a failure that would fail the next jobs too the queue is paused: the jobs stay
// until the user resumes it.
type jobQueue struct {
	tips   *widgets.TipLayer // tooltips of the rows' ✕ buttons
	jobs   []*job
	rows   []queueRow
	paused bool

	// add queues the form as it stands; shown only while a generation runs.
	add   *widget.Button
	title *widget.Label
	list  *fyne.Container
	// rows scrolls the list in a fixed height, so that queuing or starting a job never
	// moves the form or the other rows' ✕ buttons.
	rowsScroll *container.Scroll
	box        *fyne.Container // title, rows and note; hidden while nothing waits
	// pausedRow says the queue is paused, with the Resume button; shown while paused.
	pausedRow *fyne.Container
	resume    *widget.Button
}

// newJobQueue builds the queue's widgets; onAdd is the "Add to queue" button's action and
// onResume the Resume button's.
func newJobQueue(tips *widgets.TipLayer, onAdd, onResume func()) *jobQueue {
	q := &jobQueue{tips: tips}
	q.add = widget.NewButtonWithIcon("Add to queue", theme.ContentAddIcon(), onAdd)
	q.add.Hide()
	q.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	q.list = container.NewVBox()
	note := hint("Queued jobs run one after another. Closing Kleinbild drops them.")
	pausedText := widget.NewLabel("Queue paused after an error")
	pausedText.Importance = widget.WarningImportance
	pausedText.Truncation = fyne.TextTruncateEllipsis
	q.resume = widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), onResume)
	q.pausedRow = container.NewBorder(nil, nil, nil, q.resume, pausedText)
	q.pausedRow.Hide()
	q.rowsScroll = container.NewVScroll(q.list)
	q.rowsScroll.SetMinSize(fyne.NewSize(0, queueRowsShown*q.newRow(&job{}).MinSize().Height))
	q.rows = nil // that row only measured the height
	q.box = container.NewVBox(q.title, q.pausedRow, q.rowsScroll, note)
	q.box.Hide()
	return q
}

// push adds j at the end.
func (q *jobQueue) push(j *job) {
	q.jobs = append(q.jobs, j)
	q.refresh()
}

// pop takes the first job out, or returns nil.
func (q *jobQueue) pop() *job {
	if len(q.jobs) == 0 {
		return nil
	}
	j := q.jobs[0]
	q.jobs = q.jobs[1:]
	q.refresh()
	return j
}

// remove takes j out of the queue (its ✕).
func (q *jobQueue) remove(j *job) {
	q.jobs = slices.DeleteFunc(q.jobs, func(x *job) bool { return x == j })
	q.refresh()
}

// setPaused pauses or resumes the queue (a queue with no jobs is never paused).
func (q *jobQueue) setPaused(on bool) {
	q.paused = on
	q.refresh()
}

// queueRowsShown is how many queued jobs the queue shows without scrolling.
const queueRowsShown = 3

// newRow makes the row of j and appends it to rows.
func (q *jobQueue) newRow(j *job) fyne.CanvasObject {
	l := widget.NewLabel("")
	l.Truncation = fyne.TextTruncateEllipsis
	l.SizeName = theme.SizeNameCaptionText
	x := widgets.NewTipButton(q.tips, theme.CancelIcon(), "Remove from the queue", func() { q.remove(j) })
	q.rows = append(q.rows, queueRow{job: j, label: l, remove: x})
	return container.NewBorder(nil, nil, nil, x, l)
}

// refresh rebuilds the rows from the jobs.
func (q *jobQueue) refresh() {
	if len(q.jobs) == 0 {
		q.paused = false
	}
	if q.paused {
		q.pausedRow.Show()
	} else {
		q.pausedRow.Hide()
	}
	q.rows = q.rows[:0]
	q.list.RemoveAll()
	for i, j := range q.jobs {
		q.list.Add(q.newRow(j))
		q.rows[i].label.SetText(fmt.Sprintf("%d. %s", i+1, j.Label()))
	}
	if len(q.jobs) == 0 {
		q.box.Hide()
		return
	}
	q.title.SetText(fmt.Sprintf("Queued (%d)", len(q.jobs)))
	q.box.Show()
}
