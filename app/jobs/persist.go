package jobs

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"os"

	"kleinbild/engine"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// Limits of a stored queue (queue.json in the data folder).
const (
	MaxStored     = 200      // jobs kept; later ones are dropped
	maxQueueBytes = 32 << 20 // MaxStored prompts of engine.MaxPromptBytes and their settings
	queueFormat   = 1
)

// StoredAdapter is an adapter of a stored job: its file and strength (opened again with
// lora.Open when the queue is read back).
type StoredAdapter struct {
	Path     string  `json:"path"`
	Strength float32 `json:"strength"`
}

// storedJob is a Job as queue.json holds it: the request's saved form (engine.Settings),
// its adapters' files and the count.
type storedJob struct {
	engine.Settings
	Adapters []StoredAdapter `json:"adapters,omitempty"`
	Count    int             `json:"count"`
	// PictureWidth and PictureHeight are Job.Picture (absent when unknown).
	PictureWidth  int `json:"picture_width,omitempty"`
	PictureHeight int `json:"picture_height,omitempty"`
}

type storedQueue struct {
	Format int         `json:"format"`
	Jobs   []storedJob `json:"jobs"`
}

// Stored is a job read back from a stored queue: its adapters are still to be opened
// (Adapters, into Job.Req.Adapters).
type Stored struct {
	Job      *Job
	Adapters []StoredAdapter
}

// EncodeQueue is the stored form of js, in order.
func EncodeQueue(js []*Job) ([]byte, error) {
	q := storedQueue{Format: queueFormat, Jobs: []storedJob{}}
	for _, j := range js {
		r := j.Req
		s := storedJob{Settings: engine.SettingsOf(r), Count: j.Count, PictureWidth: j.Picture.X, PictureHeight: j.Picture.Y}
		for _, a := range r.Adapters {
			if a.Adapter == nil {
				return nil, errors.New("a queued job has an adapter that is not open")
			}
			s.Adapters = append(s.Adapters, StoredAdapter{Path: a.Adapter.Path, Strength: a.Strength})
		}
		s.Adapters = append(s.Adapters, j.Missing...)
		q.Jobs = append(q.Jobs, s)
	}
	return json.MarshalIndent(q, "", "  ")
}

// ParseQueue reads a stored queue. Jobs that fail Check (or have more adapters than any
// form makes) are left out, each with a note saying why; at most MaxStored are kept.
func ParseQueue(raw []byte) (jobs []Stored, notes []string, err error) {
	var q storedQueue
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, nil, err
	}
	if q.Format > queueFormat {
		return nil, nil, fmt.Errorf("queue format %d is newer than this program understands (%d)", q.Format, queueFormat)
	}
	for i, s := range q.Jobs {
		if len(jobs) == MaxStored {
			notes = append(notes, fmt.Sprintf("%d jobs beyond the first %d were left out", len(q.Jobs)-i, MaxStored))
			break
		}
		req := engine.RequestOf(s.Settings)
		if err := checkStored(req, s.Adapters); err != nil {
			notes = append(notes, fmt.Sprintf("job %d (%s) was left out: %v", i+1, Ellipsize(s.Prompt, 32), err))
			continue
		}
		j := New(req, s.Count)
		if req.Image != "" && s.PictureWidth > 0 && s.PictureHeight > 0 {
			j.Picture = image.Pt(s.PictureWidth, s.PictureHeight)
		}
		jobs = append(jobs, Stored{Job: j, Adapters: s.Adapters})
	}
	return jobs, notes, nil
}

// maxStoredAdapters bounds the adapters of a stored job (the form stacks a few).
const maxStoredAdapters = 16

// checkStored is Check plus what only a stored job can get wrong: the adapters' count.
func checkStored(req engine.Request, adapters []StoredAdapter) error {
	if err := Check(req); err != nil {
		return err
	}
	if len(adapters) > maxStoredAdapters {
		return fmt.Errorf("%d adapters: at most %d", len(adapters), maxStoredAdapters)
	}
	return nil
}

// LoadQueue reads the stored queue at path: nothing when there is none. A file that cannot
// be read as a queue (damaged, or of a newer format) is kept aside as path+".unreadable"
// (UnreadableSuffix), so that the next SaveQueue does not destroy it, and gives no jobs and
// an error saying so.
func LoadQueue(path string) ([]Stored, []string, error) {
	raw, err := safefile.ReadRegular(path, maxQueueBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the queue: %w", err)
	}
	js, notes, err := ParseQueue(raw)
	if err != nil {
		aside := path + UnreadableSuffix
		if rerr := os.Rename(path, aside); rerr != nil {
			return nil, nil, fmt.Errorf("the saved queue %s cannot be read (%w) nor kept aside: %v", path, err, rerr)
		}
		return nil, nil, fmt.Errorf("the saved queue cannot be read, so it was kept aside as %s: %w", aside, err)
	}
	return js, notes, nil
}

// UnreadableSuffix is added to the name of a stored queue that could not be read.
const UnreadableSuffix = ".unreadable"

// SaveQueue writes js to path atomically (an empty queue too, so that it is not read
// back on the next start).
func SaveQueue(path string, js []*Job) error {
	raw, err := EncodeQueue(js)
	if err != nil {
		return fmt.Errorf("save the queue: %w", err)
	}
	return atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
}
