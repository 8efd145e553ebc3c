package engine

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"kleinbild/weights"
)

// ErrWeightsChanged is matched (errors.Is) by the error of a run stopped because a weight
// file changed on disk while it was mapped.
var ErrWeightsChanged = errors.New("a weight file changed on disk")

// weightWatch remembers the size and modification time of a model's weight files when they
// were mapped. A file truncated while mapped would kill the process with SIGBUS on the next
// access to a page past its end; checking before each transformer block and decoder stage
// turns that into an error naming the file.
type weightWatch struct{ files []watchedFile }

type watchedFile struct {
	path string
	size int64
	mod  time.Time
}

// newWeightWatch records the mapped weight files of a model: the safetensors files of its
// folder (info.Dir) and the single files that replace components (info.Files: GGUF, BFL
// and ComfyUI files).
func newWeightWatch(info ModelInfo) *weightWatch {
	w := &weightWatch{}
	paths := ModelFiles(info.Dir)
	for _, f := range info.Files {
		paths = append(paths, f.Path)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] || !strings.HasSuffix(p, ".safetensors") && !strings.HasSuffix(p, ".gguf") {
			continue
		}
		seen[p] = true
		if st, err := os.Stat(p); err == nil {
			w.files = append(w.files, watchedFile{p, st.Size(), st.ModTime()})
		}
	}
	return w
}

// check returns an error wrapping ErrWeightsChanged for the first file whose size or
// modification time differs from when it was recorded (or that is gone).
func (w *weightWatch) check() error {
	if w == nil {
		return nil
	}
	for _, f := range w.files {
		st, err := os.Stat(f.path)
		switch {
		case err != nil:
			return fmt.Errorf("%w: %s: %v; open the model again", ErrWeightsChanged, f.path, err)
		case st.Size() != f.size:
			return fmt.Errorf("%w: %s is now %d bytes, was %d while in use; open the model again", ErrWeightsChanged, f.path, st.Size(), f.size)
		case !st.ModTime().Equal(f.mod):
			return fmt.Errorf("%w: %s was modified while in use; open the model again", ErrWeightsChanged, f.path)
		}
	}
	return nil
}

// faultError turns a memory fault recovered under debug.SetPanicOnFault (a mapped weight
// file shrunk between two checks) into an error; other panics are passed on.
func faultError(r any, w *weightWatch) error {
	if weights.IsFault(r) {
		if err := w.check(); err != nil {
			return err
		}
		return fmt.Errorf("%w: a mapped weight file changed or shrank while it was read (memory fault); open the model again", ErrWeightsChanged)
	}
	panic(r)
}
