package run

import (
	"slices"

	"kleinbild/app/jobs"
)

// WhenJobEnds calls done with the outcome when j's run ends, however it ends (UI
// goroutine). What was registered for jobs that left the queue without running is
// forgotten here and when a run ends.
func (rn *Runner) WhenJobEnds(j *jobs.Job, done func(Outcome)) {
	rn.forgetDroppedJobs()
	if rn.afterJob == nil {
		rn.afterJob = map[*jobs.Job]func(Outcome){}
	}
	rn.afterJob[j] = done
}

// jobEnded calls what WhenJobEnds registered for j, once.
func (rn *Runner) jobEnded(j *jobs.Job, out Outcome) {
	done, ok := rn.afterJob[j]
	delete(rn.afterJob, j)
	rn.forgetDroppedJobs()
	if ok {
		done(out)
	}
}

// forgetDroppedJobs drops what WhenJobEnds registered for jobs that are neither queued nor
// running: removed, cancelled or opened back into the form, they will never end.
func (rn *Runner) forgetDroppedJobs() {
	for j := range rn.afterJob {
		running := rn.cur != nil && rn.cur.job == j
		if !running && !slices.Contains(rn.Queue.Jobs, j) {
			delete(rn.afterJob, j)
		}
	}
}
