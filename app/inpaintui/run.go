package inpaintui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/jobs"
)

// inpaintRun is the Inpaint window's view of its job while it runs or waits: a progress
// bar with the time left and Cancel, with Generate and "Repaint all" disabled (issue 36
// item 6: the window gave no feedback while its job ran, no Cancel, and its buttons stayed
// enabled).
type inpaintRun struct {
	job      *jobs.Job // the window's job until it has ended, or nil
	row      *fyne.Container
	bar      *widget.ProgressBar
	text     *widget.Label
	cancel   *widget.Button
	starters []*widget.Button // the buttons that start a job
	stop     chan struct{}    // closed when job has ended: the progress stops following it
}

// JobState is how a job stands: running with its progress, waiting in the queue, or neither
// (it has ended, or left the queue).
type JobState struct {
	Running, Queued bool
	Frac            float64
	Text            string
}

// tickInterval is how often the progress is shown anew, as in the main window.
const tickInterval = 250 * time.Millisecond

// buildRun makes the progress row (hidden while no job of the window is pending).
func (m *Mode) buildRun(starters ...*widget.Button) fyne.CanvasObject {
	r := &m.run
	r.starters = starters
	r.bar = widget.NewProgressBar()
	r.text = widget.NewLabel("")
	r.text.Truncation = fyne.TextTruncateEllipsis
	r.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		if r.job != nil && m.CancelJob != nil {
			m.CancelJob(r.job)
			m.showRun()
		}
	})
	r.row = container.NewBorder(nil, nil, nil, r.cancel, container.NewVBox(r.bar, r.text))
	r.row.Hide()
	return r.row
}

// follow shows j's progress in the window until it ends.
func (m *Mode) follow(j *jobs.Job) {
	if m.Deps.JobState == nil || m.run.row == nil {
		return
	}
	m.run.job = j
	if !m.showRun() {
		return
	}
	stop := make(chan struct{})
	m.run.stop = stop
	m.sh.BG.Add(1)
	go func() {
		defer m.sh.BG.Done()
		t := time.NewTicker(tickInterval)
		defer t.Stop()
		for {
			select {
			case <-m.sh.Life.Done():
				return
			case <-stop:
				return
			case <-t.C:
				m.sh.Post(func() {
					if m.run.job == j {
						m.showRun()
					}
				})
			}
		}
	}()
}

// showRun shows how the window's job stands, and reports whether it is still pending.
func (m *Mode) showRun() bool {
	r := &m.run
	var st JobState
	if r.job != nil {
		st = m.Deps.JobState(r.job)
	}
	pending := st.Running || st.Queued
	if !pending {
		r.job = nil
		r.row.Hide()
		if r.stop != nil {
			close(r.stop)
			r.stop = nil
		}
	} else {
		text := st.Text
		if st.Queued {
			text = "Waiting in the queue for the image being made"
		}
		r.bar.SetValue(st.Frac)
		r.text.SetText(text)
		r.row.Show()
	}
	for _, b := range r.starters {
		if pending {
			b.Disable()
		} else {
			b.Enable()
		}
	}
	return pending
}
