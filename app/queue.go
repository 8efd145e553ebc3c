package app

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/humanize"
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
	job      *job
	label    *widget.Label
	remove   *widgets.TipButton
	up, down *widgets.TipButton // move the job earlier or later (queueorder.go)
	// open puts the job back into the form and takes it out of the queue (onOpen).
	open *widgets.TipButton
}

// jobQueue holds the jobs lined up behind the running one and shows them under the
// Generate button, each with its size, seed and count, ↑ ↓ to reorder it, an Edit button
// that opens it back into the form and a ✕ to take it out, and Cancel all.
// The queue is saved in the data folder and comes back, paused, on the next start
// (queuepersist.go). After a failure that would fail the next jobs too the queue is paused: the jobs stay
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
	// pausedText says why the queue is paused.
	pausedText *widget.Label
	// cancelAll empties the queue and cancels the running job (its action: onCancelAll).
	cancelAll   *widget.Button
	onCancelAll func()
	// running reports whether an image is being made (Cancel all stops it too).
	running func() bool
	// changed, when set, is told the jobs after every change (to save them).
	changed func(jobs []*job)
	// tab is the queue's tab beside the gallery (its title counts the jobs), in tabs.
	tab  *container.TabItem
	tabs *container.AppTabs
	// empty is the tab's hint while nothing is queued (hidden under the rows otherwise).
	empty fyne.CanvasObject
	// confirm asks before Cancel all empties the queue (dialog.ShowConfirm; tests replace it).
	confirm func(title, msg string, ok func())
	// onOpen is a row's Edit: it puts the job's settings into the form and removes it
	// (UI.openJob); nil leaves the button disabled.
	onOpen func(j *job)
}

// newJobQueue builds the queue's widgets; onAdd is the "Add to queue" button's action and
// onResume the Resume button's.
func newJobQueue(tips *widgets.TipLayer, onAdd, onResume func()) *jobQueue {
	q := &jobQueue{tips: tips}
	q.add = widget.NewButtonWithIcon("Add to queue", theme.ContentAddIcon(), onAdd)
	q.add.Hide()
	q.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	q.list = container.NewVBox()
	note := hint("Queued jobs run one after another. They are kept when Kleinbild closes.")
	pausedText := widget.NewLabel(pausedAfterError)
	pausedText.Importance = widget.WarningImportance
	pausedText.Wrapping = fyne.TextWrapWord // "Queue kept from the las…" was cut off
	q.resume = widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), onResume)
	q.pausedRow = container.NewBorder(nil, nil, nil, q.resume, pausedText)
	q.pausedRow.Hide()
	q.pausedText = pausedText
	q.cancelAll = widget.NewButtonWithIcon("Cancel all", theme.CancelIcon(), q.askCancelAll)
	q.cancelAll.Importance = widget.LowImportance
	q.rowsScroll = container.NewVScroll(q.list)
	q.rowsScroll.SetMinSize(fyne.NewSize(0, queueRowsShown*q.newRow(0, &job{}).MinSize().Height))
	q.rows = nil // that row only measured the height
	q.box = container.NewBorder(container.NewVBox(container.NewBorder(nil, nil, nil, q.cancelAll, q.title), q.pausedRow),
		note, nil, nil, q.rowsScroll)
	q.box.Hide()
	return q
}

// buildTab puts the queue in its own tab beside the gallery's, in tabs: it has a fixed
// place there, so queuing a job or restoring a kept queue never moves the form (issue 28
// item 7: the queue took the lower half of the form and a click meant for Seed landed in
// it).
func (q *jobQueue) buildTab(tabs *container.AppTabs) *container.TabItem {
	q.empty = container.NewPadded(hintAligned("Nothing is queued. While an image is being made, Add to queue (beside Generate) lines up more.",
		fyne.TextAlignCenter))
	q.tab = container.NewTabItemWithIcon("Queue", theme.ListIcon(),
		container.NewStack(q.empty, container.NewPadded(q.box)))
	q.showEmpty()
	q.tabs = tabs
	return q.tab
}

// retitle shows the number of queued jobs, and a paused queue, in the tab's title.
func (q *jobQueue) retitle() {
	if q.tab == nil {
		return
	}
	t := "Queue"
	switch {
	case len(q.jobs) > 0 && q.paused:
		t = fmt.Sprintf("Queue (%d, paused)", len(q.jobs))
	case len(q.jobs) > 0:
		t = fmt.Sprintf("Queue (%d)", len(q.jobs))
	}
	if q.tab.Text != t {
		q.tab.Text = t
		if q.tabs != nil {
			q.tabs.Refresh()
		}
	}
}

// askCancelAll is Cancel all: it asks first, naming what goes (issue 28 item 8: it deleted
// the whole queue, jobs kept from the last session too, at once).
func (q *jobQueue) askCancelAll() {
	if q.onCancelAll == nil {
		return
	}
	msg := fmt.Sprintf("Remove the %d queued jobs", len(q.jobs))
	if len(q.jobs) == 1 {
		msg = "Remove the queued job"
	}
	// Only a running image is stopped (issue 36 defect 12: a paused queue with nothing
	// running was told so too).
	if q.running != nil && q.running() {
		msg += " and stop the image being made"
	}
	msg += "?"
	if q.confirm == nil {
		q.onCancelAll()
		return
	}
	q.confirm("Cancel all", msg, q.onCancelAll)
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
	q.pausedText.SetText(pausedAfterError)
	q.refresh()
}

// pausedAfterError is the paused row's usual text.
const pausedAfterError = "Queue paused after an error"

// queueRowsShown is how many queued jobs the queue shows without scrolling.
const queueRowsShown = 3

// newRow makes the row of j, the queue's i-th job, and appends it to rows.
func (q *jobQueue) newRow(i int, j *job) fyne.CanvasObject {
	l := widget.NewLabel(fmt.Sprintf("%d. %s", i+1, queueLine(j)))
	l.Truncation = fyne.TextTruncateEllipsis
	l.SizeName = theme.SizeNameCaptionText
	x := widgets.NewTipButton(q.tips, theme.CancelIcon(), "Remove from the queue", func() { q.remove(j) })
	row := queueRow{job: j, label: l, remove: x}
	row.up, row.down = q.moveButtons(i, j)
	row.open = q.openButton(j)
	q.rows = append(q.rows, row)
	return container.NewBorder(nil, nil, nil, container.NewHBox(row.open, row.up, row.down, x), l)
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
		q.list.Add(q.newRow(i, j))
	}
	q.retitle()
	q.showEmpty()
	if q.changed != nil {
		q.changed(q.jobs)
	}
	if len(q.jobs) == 0 {
		q.box.Hide()
		return
	}
	q.title.SetText(fmt.Sprintf("Queued (%d)", len(q.jobs)))
	q.box.Show()
}

// queueLine is a job's text in the queue, on lines of its own so that a long prompt never
// hides the rest: its label (prompt; size, count) and its seed (on a third line the seeds
// of its images where it makes several), so that jobs of the same prompt can be told apart.
func queueLine(j *job) string {
	label := j.Label()
	if prompt := jobs.Ellipsize(j.Req.Prompt, 32) + " · "; strings.HasPrefix(label, prompt) {
		label = strings.TrimSuffix(prompt, " · ") + "\n" + label[len(prompt):]
	}
	if j.Count > 1 {
		return label + "\nseeds " + humanize.SeedRange(j.Req.Seed, j.Count) // long seeds share digits
	}
	return fmt.Sprintf("%s · seed %d", label, j.Req.Seed)
}

// showEmpty shows the tab's hint while nothing is queued.
func (q *jobQueue) showEmpty() {
	if q.empty == nil {
		return
	}
	if len(q.jobs) == 0 {
		q.empty.Show()
	} else {
		q.empty.Hide()
	}
}
