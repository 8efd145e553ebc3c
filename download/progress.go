package download

import (
	"sync"
	"sync/atomic"
	"time"
)

// Phase is the stage of a download.
type Phase string

// The phases of Download, in order.
const (
	PhaseListing     Phase = "listing"     // asking the Hub API for the file list
	PhaseChecking    Phase = "checking"    // hashing files already in the folder (no manifest record)
	PhaseDownloading Phase = "downloading" // fetching, and verifying each file as it completes
	PhaseVerifying   Phase = "verifying"   // every byte received; final hashes running
	PhaseDone        Phase = "done"
)

// Progress is a snapshot of a download for display.
type Progress struct {
	Phase Phase
	Repo  string
	// File is the file most recently started (or being checked).
	File string
	// FilesDone of Files are verified and in place.
	Files, FilesDone int
	// Bytes of TotalBytes are done: during PhaseChecking the bytes hashed of the files being
	// checked; otherwise the bytes on disk (verified files plus partial data) of all files.
	Bytes, TotalBytes int64
	// Fetched is what this run received over the network.
	Fetched int64
	// Rate is the smoothed network rate in bytes per second; ETA the remaining time at that
	// rate (0 when unknown).
	Rate    float64
	ETA     time.Duration
	Elapsed time.Duration
	// Retries counts transient failures so far; Note describes the latest one ("" when none
	// happened since the previous report).
	Retries int
	Note    string
}

// Fraction is Bytes/TotalBytes in [0, 1] (1 when there is nothing to do).
func (p Progress) Fraction() float64 {
	if p.TotalBytes <= 0 {
		return 1
	}
	return min(1, max(0, float64(p.Bytes)/float64(p.TotalBytes)))
}

// reporter aggregates the workers' counters and calls the Progress callback: on a ticker and
// at phase changes, always under mu, so that calls never overlap.
type reporter struct {
	fn       func(Progress)
	interval time.Duration
	start    time.Time
	notes    retryNotes

	done    atomic.Int64 // bytes on disk (download phases)
	fetched atomic.Int64
	files   atomic.Int64 // files done

	mu        sync.Mutex
	p         Progress // phase, repo, file, totals, check counters
	rate      float64
	lastBytes int64
	lastTime  time.Time

	stop chan struct{}
	wg   sync.WaitGroup
}

func newReporter(fn func(Progress), interval time.Duration, repo string) *reporter {
	r := &reporter{fn: fn, interval: interval, start: time.Now(), stop: make(chan struct{})}
	r.p.Repo = repo
	r.lastTime = r.start
	if fn != nil {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			t := time.NewTicker(interval)
			defer t.Stop()
			for {
				select {
				case <-r.stop:
					return
				case <-t.C:
					r.emit()
				}
			}
		}()
	}
	return r
}

// close stops the ticker; no call to the callback happens afterwards except final.
func (r *reporter) close() {
	close(r.stop)
	r.wg.Wait()
}

// set changes the shared fields under the lock and reports at once when phase changes.
func (r *reporter) set(update func(p *Progress)) {
	r.mu.Lock()
	before := r.p.Phase
	update(&r.p)
	changed := r.p.Phase != before
	r.mu.Unlock()
	if changed {
		r.emit()
	}
}

func (r *reporter) setFile(name string) {
	r.mu.Lock()
	r.p.File = name
	r.mu.Unlock()
}

// emit computes a snapshot and calls the callback.
func (r *reporter) emit() {
	if r.fn == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fn(r.snapshot())
}

// snapshot must run under mu.
func (r *reporter) snapshot() Progress {
	p := r.p
	now := time.Now()
	p.Elapsed = now.Sub(r.start)
	p.Fetched = r.fetched.Load()
	p.Note, p.Retries = r.notes.take()
	if p.Phase == PhaseChecking {
		return p
	}
	p.Bytes = r.done.Load()
	p.FilesDone = int(r.files.Load())
	if dt := now.Sub(r.lastTime).Seconds(); dt >= 0.05 {
		inst := float64(p.Fetched-r.lastBytes) / dt
		if r.rate == 0 {
			r.rate = inst
		} else {
			r.rate = 0.7*r.rate + 0.3*inst
		}
		r.lastBytes, r.lastTime = p.Fetched, now
	}
	p.Rate = r.rate
	if p.Phase == PhaseDownloading && p.Bytes >= p.TotalBytes && p.FilesDone < p.Files {
		p.Phase = PhaseVerifying
	}
	if left := p.TotalBytes - p.Bytes; left > 0 && p.Rate > 1 {
		p.ETA = time.Duration(float64(left) / p.Rate * float64(time.Second))
	}
	return p
}

// received records n bytes written to disk from the network.
func (r *reporter) received(n int64) {
	r.done.Add(n)
	r.fetched.Add(n)
}
