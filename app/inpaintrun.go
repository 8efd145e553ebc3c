package app

import (
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// inpaintRun is the Inpaint window's view of its job while it runs or waits: a progress
// bar with the time left and Cancel, with Generate and "Repaint all" disabled (issue 36
// item 6: the window gave no feedback while its job ran, no Cancel, and its buttons stayed
// enabled).
type inpaintRun struct {
	job      *job // the window's job until it has ended, or nil
	row      *fyne.Container
	bar      *widget.ProgressBar
	text     *widget.Label
	cancel   *widget.Button
	starters []*widget.Button // the buttons that start a job
	stop     chan struct{}    // closed when job has ended: the progress stops following it
}

// jobState is how a job stands: running with its progress, waiting in the queue, or neither
// (it has ended, or left the queue).
type jobState struct {
	running, queued bool
	frac            float64
	text            string
}

// buildRun makes the progress row (hidden while no job of the window is pending).
func (m *inpaintMode) buildRun(starters ...*widget.Button) fyne.CanvasObject {
	r := &m.run
	r.starters = starters
	r.bar = widget.NewProgressBar()
	r.text = widget.NewLabel("")
	r.text.Truncation = fyne.TextTruncateEllipsis
	r.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		if r.job != nil && m.cancelJob != nil {
			m.cancelJob(r.job)
			m.showRun()
		}
	})
	r.row = container.NewBorder(nil, nil, nil, r.cancel, container.NewVBox(r.bar, r.text))
	r.row.Hide()
	return r.row
}

// follow shows j's progress in the window until it ends.
func (m *inpaintMode) follow(j *job) {
	if m.jobState == nil || m.run.row == nil {
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
func (m *inpaintMode) showRun() bool {
	r := &m.run
	var st jobState
	if r.job != nil {
		st = m.jobState(r.job)
	}
	pending := st.running || st.queued
	if !pending {
		r.job = nil
		r.row.Hide()
		if r.stop != nil {
			close(r.stop)
			r.stop = nil
		}
	} else {
		text := st.text
		if st.queued {
			text = "Waiting in the queue for the image being made"
		}
		r.bar.SetValue(st.frac)
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

// inpaintJobState is Inpaint mode's jobState.
func (u *UI) inpaintJobState(j *job) jobState {
	if r := u.run.cur; r != nil && r.job == j {
		frac, text := r.tracker.Status(time.Since(r.start))
		if r.cancelling {
			text = "Cancelling…"
		}
		return jobState{running: true, frac: frac, text: text}
	}
	return jobState{queued: slices.Contains(u.run.queue.Jobs, j)}
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
