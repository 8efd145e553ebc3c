package run

import (
	"context"
	"strings"
	"testing"

	"kleinbild/app/jobqueue"
	"kleinbild/app/jobs"
)

// What WhenJobEnds registered (Inpaint's result) is called when its job's run ends, and
// forgotten for a job removed from the queue without running, as finishRun and
// startQueued order it (the window's flow is TestAfterJobForgetsDroppedJobs in package app).
func TestWhenJobEndsForgetsDroppedJobs(t *testing.T) {
	first, dropped, kept := &jobs.Job{Count: 1}, &jobs.Job{Count: 1}, &jobs.Job{Count: 1}
	rn := &Runner{Queue: &jobqueue.Queue{Jobs: []*jobs.Job{dropped, kept}}, cur: &State{job: first}}
	var ended []string
	rn.WhenJobEnds(dropped, func(Outcome) { ended = append(ended, "dropped") })
	rn.WhenJobEnds(kept, func(Outcome) { ended = append(ended, "kept") })
	rn.Queue.Jobs = []*jobs.Job{kept} // "dropped" is removed from the queue
	rn.cur = nil                      // "first" is cancelled: its run ends before "kept" starts
	rn.jobEnded(first, Outcome{Err: context.Canceled})
	if _, ok := rn.afterJob[dropped]; ok {
		t.Error("the removed job's entry is still registered after a run ended")
	}
	rn.Queue.Jobs, rn.cur = nil, &State{job: kept} // "kept" runs
	rn.forgetDroppedJobs()
	if _, ok := rn.afterJob[kept]; !ok {
		t.Fatal("the running job's entry was forgotten")
	}
	rn.cur = nil
	rn.jobEnded(kept, Outcome{Err: context.Canceled})
	if strings.Join(ended, ",") != "kept" || len(rn.afterJob) != 0 {
		t.Errorf("called for %v, %d entries left, want kept and none", ended, len(rn.afterJob))
	}
}
