package desktop

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
)

// panicWindow's event loop panics as Fyne's did on a mouse move after the close began.
type panicWindow struct{}

func (panicWindow) ShowAndRun() {
	var p *struct{ x int }
	_ = p.x // a nil dereference, as in Fyne's processMouseMoved
}

// Issue 37 item 2: a panic in Fyne's event loop after the window closed (two instances
// quitting at once; Fyne dereferenced the closed window's viewport on a mouse move) ends
// the run with one line, not a crash with exit status 2; before the close a panic goes on.
func TestPanicAfterCloseIsNoCrash(t *testing.T) {
	var closed atomic.Bool
	closed.Store(true)
	var log bytes.Buffer
	showAndRun(panicWindow{}, &closed, &log)
	if got := log.String(); !strings.Contains(got, "the window failed while closing") || !strings.Contains(got, "nil pointer") || strings.Count(got, "\n") != 1 {
		t.Errorf("after the close: %q, want one line naming the failure", got)
	}

	closed.Store(false)
	defer func() {
		if recover() == nil {
			t.Error("a panic before the close was swallowed")
		}
	}()
	showAndRun(panicWindow{}, &closed, &log)
}
