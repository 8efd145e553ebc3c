// Package jobqueue is the queue of generation jobs lined up behind the running one, in
// its own tab beside the gallery: a row per job to reorder, edit or remove it, Cancel
// all, and the paused state with Resume. It holds and shows the jobs; the runner takes
// them out and runs them.
package jobqueue

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

// Row is one waiting job on screen.
type Row struct {
	Job    *jobs.Job
	Label  *widget.Label
	Remove *widgets.TipButton
	// Up and Down move the job earlier or later (order.go).
	Up, Down *widgets.TipButton
	// Open puts the job back into the form and takes it out of the queue (OnOpen).
	Open *widgets.TipButton
}

// Queue holds the jobs lined up behind the running one and shows them under the
// Generate button, each with its size, seed and count, ↑ ↓ to reorder it, an Edit button
// that opens it back into the form and a ✕ to take it out, and Cancel all.
// The queue is saved in the data folder and comes back, paused, on the next start
// (its owner saves it through Changed). After a failure that would fail the next jobs too
// the queue is paused: the jobs stay until the user resumes it. Its fields are read by
// its owner and the tests; the jobs change through its methods.
type Queue struct {
	tips *widgets.TipLayer // tooltips of the rows' ✕ buttons
	// Jobs are the waiting jobs, the next to run first; Rows show them, in that order.
	Jobs []*jobs.Job
	Rows []Row
	// Paused is set while the queue waits for Resume (never while it is empty).
	Paused bool

	// Add queues the form as it stands; shown only while a generation runs.
	Add *widget.Button
	// Title counts the queued jobs above the rows.
	Title *widget.Label
	list  *fyne.Container
	// rowsScroll scrolls the list in a fixed height, so that queuing or starting a job never
	// moves the form or the other rows' ✕ buttons.
	rowsScroll *container.Scroll
	// Box holds the title, rows and note; hidden while nothing waits.
	Box *fyne.Container
	// PausedRow says the queue is paused, with the Resume button; shown while paused.
	PausedRow *fyne.Container
	// Resume runs the queue again.
	Resume *widget.Button
	// PausedText says why the queue is paused.
	PausedText *widget.Label
	// CancelAll empties the queue and cancels the running job (its action: OnCancelAll).
	CancelAll   *widget.Button
	OnCancelAll func()
	// Running reports whether an image is being made (Cancel all stops it too).
	Running func() bool
	// Changed, when set, is told the jobs after every change (to save them).
	Changed func(jobs []*jobs.Job)
	// Tab is the queue's tab beside the gallery (its title counts the jobs), in tabs.
	Tab  *container.TabItem
	tabs *container.AppTabs
	// Empty is the tab's hint while nothing is queued (hidden under the rows otherwise).
	Empty fyne.CanvasObject
	// Confirm asks before Cancel all empties the queue (dialog.ShowConfirm; tests replace it).
	Confirm func(title, msg string, ok func())
	// OnOpen is a row's Edit: it puts the job's settings into the form and removes it
	// (UI.openJob); nil leaves the button disabled.
	OnOpen func(j *jobs.Job)
}

// New builds the queue's widgets; onAdd is the "Add to queue" button's action and
// onResume the Resume button's.
func New(tips *widgets.TipLayer, onAdd, onResume func()) *Queue {
	q := &Queue{tips: tips}
	q.Add = widget.NewButtonWithIcon("Add to queue", theme.ContentAddIcon(), onAdd)
	q.Add.Hide()
	q.Title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	q.list = container.NewVBox()
	note := caption("Queued jobs run one after another. They are kept when Kleinbild closes.", fyne.TextAlignLeading)
	pausedText := widget.NewLabel(pausedAfterError)
	pausedText.Importance = widget.WarningImportance
	pausedText.Wrapping = fyne.TextWrapWord // "Queue kept from the las…" was cut off
	q.Resume = widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), onResume)
	q.PausedRow = container.NewBorder(nil, nil, nil, q.Resume, pausedText)
	q.PausedRow.Hide()
	q.PausedText = pausedText
	q.CancelAll = widget.NewButtonWithIcon("Cancel all", theme.CancelIcon(), q.askCancelAll)
	q.CancelAll.Importance = widget.LowImportance
	q.rowsScroll = container.NewVScroll(q.list)
	q.rowsScroll.SetMinSize(fyne.NewSize(0, queueRowsShown*q.newRow(0, &jobs.Job{}).MinSize().Height))
	q.Rows = nil // that row only measured the height
	q.Box = container.NewBorder(container.NewVBox(container.NewBorder(nil, nil, nil, q.CancelAll, q.Title), q.PausedRow),
		note, nil, nil, q.rowsScroll)
	q.Box.Hide()
	return q
}

// BuildTab puts the queue in its own tab beside the gallery's, in tabs: it has a fixed
// place there, so queuing a job or restoring a kept queue never moves the form (issue 28
// item 7: the queue took the lower half of the form and a click meant for Seed landed in
// it).
func (q *Queue) BuildTab(tabs *container.AppTabs) *container.TabItem {
	q.Empty = container.NewPadded(caption("Nothing is queued. While an image is being made, Add to queue (beside Generate) lines up more.",
		fyne.TextAlignCenter))
	q.Tab = container.NewTabItemWithIcon("Queue", theme.ListIcon(),
		container.NewStack(q.Empty, container.NewPadded(q.Box)))
	q.showEmpty()
	q.tabs = tabs
	return q.Tab
}

// Retitle shows the number of queued jobs, and a paused queue, in the tab's title.
func (q *Queue) Retitle() {
	if q.Tab == nil {
		return
	}
	t := "Queue"
	switch {
	case len(q.Jobs) > 0 && q.Paused:
		t = fmt.Sprintf("Queue (%d, paused)", len(q.Jobs))
	case len(q.Jobs) > 0:
		t = fmt.Sprintf("Queue (%d)", len(q.Jobs))
	}
	if q.Tab.Text != t {
		q.Tab.Text = t
		if q.tabs != nil {
			q.tabs.Refresh()
		}
	}
}

// askCancelAll is Cancel all: it asks first, naming what goes (issue 28 item 8: it deleted
// the whole queue, jobs kept from the last session too, at once).
func (q *Queue) askCancelAll() {
	if q.OnCancelAll == nil {
		return
	}
	msg := fmt.Sprintf("Remove the %d queued jobs", len(q.Jobs))
	if len(q.Jobs) == 1 {
		msg = "Remove the queued job"
	}
	// Only a running image is stopped (issue 36 defect 12: a paused queue with nothing
	// running was told so too).
	if q.Running != nil && q.Running() {
		msg += " and stop the image being made"
	}
	msg += "?"
	if q.Confirm == nil {
		q.OnCancelAll()
		return
	}
	q.Confirm("Cancel all", msg, q.OnCancelAll)
}

// Push adds j at the end.
func (q *Queue) Push(j *jobs.Job) {
	q.Jobs = append(q.Jobs, j)
	q.refresh()
}

// Pop takes the first job out, or returns nil.
func (q *Queue) Pop() *jobs.Job {
	if len(q.Jobs) == 0 {
		return nil
	}
	j := q.Jobs[0]
	q.Jobs = q.Jobs[1:]
	q.refresh()
	return j
}

// Remove takes j out of the queue (its ✕).
func (q *Queue) Remove(j *jobs.Job) {
	q.Jobs = slices.DeleteFunc(q.Jobs, func(x *jobs.Job) bool { return x == j })
	q.refresh()
}

// SetPaused pauses or resumes the queue (a queue with no jobs is never paused).
func (q *Queue) SetPaused(on bool) {
	q.Paused = on
	q.PausedText.SetText(pausedAfterError)
	q.refresh()
}

// pausedAfterError is the paused row's usual text.
const pausedAfterError = "Queue paused after an error"

// queueRowsShown is how many queued jobs the queue shows without scrolling.
const queueRowsShown = 3

// newRow makes the row of j, the queue's i-th job, and appends it to rows.
func (q *Queue) newRow(i int, j *jobs.Job) fyne.CanvasObject {
	l := widget.NewLabel(fmt.Sprintf("%d. %s", i+1, queueLine(j)))
	l.Truncation = fyne.TextTruncateEllipsis
	l.SizeName = theme.SizeNameCaptionText
	x := widgets.NewTipButton(q.tips, theme.CancelIcon(), "Remove from the queue", func() { q.Remove(j) })
	row := Row{Job: j, Label: l, Remove: x}
	row.Up, row.Down = q.moveButtons(i, j)
	row.Open = q.openButton(j)
	q.Rows = append(q.Rows, row)
	return container.NewBorder(nil, nil, nil, container.NewHBox(row.Open, row.Up, row.Down, x), l)
}

// refresh rebuilds the rows from the jobs.
func (q *Queue) refresh() {
	if len(q.Jobs) == 0 {
		q.Paused = false
	}
	if q.Paused {
		q.PausedRow.Show()
	} else {
		q.PausedRow.Hide()
	}
	q.Rows = q.Rows[:0]
	q.list.RemoveAll()
	for i, j := range q.Jobs {
		q.list.Add(q.newRow(i, j))
	}
	q.Retitle()
	q.showEmpty()
	if q.Changed != nil {
		q.Changed(q.Jobs)
	}
	if len(q.Jobs) == 0 {
		q.Box.Hide()
		return
	}
	q.Title.SetText(fmt.Sprintf("Queued (%d)", len(q.Jobs)))
	q.Box.Show()
}

// queueLine is a job's text in the queue, on lines of its own so that a long prompt never
// hides the rest: its label (prompt; size, count) and its seed (on a third line the seeds
// of its images where it makes several), so that jobs of the same prompt can be told apart.
func queueLine(j *jobs.Job) string {
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
func (q *Queue) showEmpty() {
	if q.Empty == nil {
		return
	}
	if len(q.Jobs) == 0 {
		q.Empty.Show()
	} else {
		q.Empty.Hide()
	}
}
