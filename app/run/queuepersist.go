package run

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"kleinbild/app/jobs"
	"kleinbild/engine/lora"
)

// queueFile keeps the jobs still to make (the running job's remaining images, then the
// queue) in queue.json in the data folder, written atomically after every change, so that
// they survive quitting. Writes run in the background, serialised, each writing the
// newest list pending.
type queueFile struct {
	path    string
	mu      sync.Mutex // guards pending
	pending []*jobs.Job
	dirty   bool
	writeMu sync.Mutex // serialises writes
}

// restoredPaused is the paused row's text for a queue brought back from the last session.
const restoredPaused = "Queue kept from the last session"

// SetUpQueue connects the queue to its file and to Cancel all, and brings back the jobs
// saved by the last session (paused, so that nothing starts unasked). Reading them, and
// opening their adapters, happens off the UI goroutine.
func (rn *Runner) SetUpQueue(path string) {
	rn.qfile = &queueFile{path: path}
	q := rn.Queue
	q.OnCancelAll = rn.cancelAll
	q.Running = func() bool { return rn.cur != nil }
	rn.sh.BG.Add(1)
	go func() {
		defer rn.sh.BG.Done()
		stored, notes, err := jobs.LoadQueue(path)
		var restored []*jobs.Job
		for _, s := range stored {
			if err := openStoredAdapters(s); err != nil {
				notes = append(notes, fmt.Sprintf("a job (%s) was left out: %v", jobs.Ellipsize(s.Job.Req.Prompt, 32), err))
				continue
			}
			if len(s.Job.Missing) > 0 {
				notes = append(notes, fmt.Sprintf("a job (%s) is kept, but its adapter %s cannot be opened now; it is tried again when the job runs",
					jobs.Ellipsize(s.Job.Req.Prompt, 32), filepath.Base(s.Job.Missing[0].Path)))
			}
			restored = append(restored, s.Job)
		}
		rn.sh.Post(func() { rn.restoreQueue(restored, notes, err) })
	}()
}

// openStoredAdapters opens the adapters of a stored job into its request. One whose file
// cannot be opened now (a disk not mounted yet) is kept in Job.Missing, for the run to try
// again (withMissingAdapters), as a job with a missing reference is kept.
func openStoredAdapters(s jobs.Stored) error {
	for _, a := range s.Adapters {
		ad, err := lora.Open(a.Path)
		if err != nil {
			s.Job.Missing = append(s.Job.Missing, a)
			continue
		}
		s.Job.Req.Adapters = append(s.Job.Req.Adapters, lora.Weighted{Adapter: ad, Strength: a.Strength})
	}
	return s.Job.Req.Adapters.Check()
}

// withMissingAdapters is j's adapters with those still missing since the queue was read back
// opened now (generating goroutine): an error naming the file when one still cannot be.
func withMissingAdapters(j *jobs.Job) (lora.Stack, error) {
	st := j.Req.Adapters
	if len(j.Missing) == 0 {
		return st, nil
	}
	st = slices.Clone(st)
	for _, a := range j.Missing {
		ad, err := lora.Open(a.Path)
		if err != nil {
			return nil, fmt.Errorf("the adapter %s of this queued job cannot be opened: %w", filepath.Base(a.Path), err)
		}
		st = append(st, lora.Weighted{Adapter: ad, Strength: a.Strength})
	}
	return st, st.Check()
}

// restoreQueue puts the restored jobs before any queued meanwhile, paused (UI goroutine);
// from then on every change of the queue is saved.
func (rn *Runner) restoreQueue(restored []*jobs.Job, notes []string, err error) {
	q := rn.Queue
	q.Changed = func([]*jobs.Job) { rn.saveQueue() }
	if err != nil {
		rn.sh.ShowError(err)
	}
	if len(notes) > 0 {
		rn.sh.ShowNotice("Some saved jobs could not be restored: " + strings.Join(notes, "; ") + ".")
	}
	if len(restored) == 0 {
		rn.saveQueue()
		return
	}
	q.Jobs = append(restored, q.Jobs...)
	q.SetPaused(true)
	q.PausedText.SetText(restoredPaused)
}

// pendingJobs are the jobs still to make: the running job's remaining images (unless it
// is being cancelled), then the queue (UI goroutine).
func (rn *Runner) pendingJobs() []*jobs.Job {
	var out []*jobs.Job
	if r := rn.cur; r != nil && !r.cancelling && len(r.entries) < r.job.Count {
		rest := *r.job
		rest.Req.Seed += uint64(len(r.entries))
		rest.Count -= len(r.entries)
		out = append(out, &rest)
	}
	return append(out, rn.Queue.Jobs...)
}

// saveQueue writes the pending jobs in the background (UI goroutine). Nothing is written
// before the saved queue has been read back (SetUpQueue), nor after the UI has stopped:
// the run cancelled by quitting stays in the file.
func (rn *Runner) saveQueue() {
	f := rn.qfile
	if f == nil || rn.Queue.Changed == nil || rn.sh.Life.Err() != nil {
		return
	}
	f.mu.Lock()
	f.pending, f.dirty = slices.Clone(rn.pendingJobs()), true
	f.mu.Unlock()
	rn.sh.BG.Add(1)
	go func() {
		defer rn.sh.BG.Done()
		if err := f.write(); err != nil {
			rn.sh.Post(func() { rn.sh.ShowError(err) })
		}
	}()
}

// write saves the pending list, if a newer one has not been written already.
func (f *queueFile) write() error {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	f.mu.Lock()
	js, dirty := f.pending, f.dirty
	f.pending, f.dirty = nil, false
	f.mu.Unlock()
	if !dirty {
		return nil
	}
	if err := jobs.SaveQueue(f.path, js); err != nil {
		return fmt.Errorf("the queue could not be saved: %w", err)
	}
	return nil
}

// cancelAll empties the queue and cancels the running job (Cancel all).
func (rn *Runner) cancelAll() {
	rn.Queue.Clear()
	rn.Cancel()
	rn.saveQueue()
}
