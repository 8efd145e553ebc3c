package progress

import (
	"fmt"
	"time"
)

// run is where the tracker's image sits in a run of several (issue 36 item 7: "Image 2 of 8
// … about 2.7 s left" showed one image's figures while 19 s remained).
type run struct {
	index, count int
	spent        time.Duration // what the images before this one took
	next         Plan          // the plan of each image after this one
}

// InRun places the tracker's image in a run: image index (from 0) of count, started spent
// after the run began, each image after it planned as next (zero: no plan). With count
// above 1 the bar, the elapsed time and the time left are the whole run's, the line names
// the image, and "almost done" waits for the last image.
func (t *Tracker) InRun(index, count int, spent time.Duration, next Plan) {
	t.run = run{index: min(max(index, 0), max(count-1, 0)), count: count, spent: max(spent, 0), next: next}
}

// batch reports whether the tracker's image is one of several.
func (t *Tracker) batch() bool { return t.run.count > 1 }

// lastImage reports whether the tracker's image is the run's last (or its only one).
func (t *Tracker) lastImage() bool { return t.run.index >= t.run.count-1 }

// runFraction is the run's part of the bar for the image's part frac: each image an equal
// share, so that the bar never moves back between images.
func (t *Tracker) runFraction(frac float64) float64 {
	if !t.batch() {
		return frac
	}
	return (float64(t.run.index) + frac) / float64(t.run.count)
}

// laterImages is the time the images after this one are expected to take: count each of
// them as this image when it is itself a later one (their pace, measured), else the later
// images' plan at the pace this image runs against its own plan. ok is false when there is
// nothing to go by.
func (t *Tracker) laterImages() (d time.Duration, ok bool) {
	later := t.run.count - t.run.index - 1
	if later <= 0 {
		return 0, true
	}
	var each time.Duration
	switch {
	case t.run.index > 0 && t.hasLeft:
		each = t.lastAt + t.left // this image's expected time, as its own phases run
	case t.run.next.total() > 0:
		each = time.Duration(float64(t.run.next.total()) * t.pace())
	case t.run.index > 0:
		each = t.run.spent / time.Duration(t.run.index)
	default:
		return 0, false
	}
	return each * time.Duration(later), true
}

// pace is how this image's phases run against their plan (1: as planned, 2: twice as long);
// 1 without a measured pace.
func (t *Tracker) pace() float64 {
	if t.paceRatio > 0 {
		return t.paceRatio
	}
	return 1
}

// runText puts the image's line in the run: "Image i of n · " before it.
func (t *Tracker) runText(text string) string {
	if !t.batch() {
		return text
	}
	return fmt.Sprintf("Image %d of %d · %s", t.run.index+1, t.run.count, text)
}
