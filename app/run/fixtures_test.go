package run

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/jobqueue"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
)

// queueRunner is a runner with only a shell (a test window, its banner; the UI goroutine is
// the test's) and an empty queue: no generator, gallery, form or viewer.
func queueRunner(t *testing.T) *Runner {
	t.Helper()
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	sh := &shell.Shell{App: a, Win: w, DataDir: t.TempDir(), Post: func(fn func()) { fn() }, Status: widget.NewLabel("")}
	sh.Life, sh.End = context.WithCancel(context.Background())
	t.Cleanup(sh.End)
	sh.Tips = widgets.NewTipLayer(w.Canvas(), sh.Post)
	sh.Banner = shell.NewBanner(sh.Tips)
	rn := &Runner{sh: sh}
	rn.Queue = jobqueue.New(sh.Tips, func() {}, func() {})
	return rn
}

// noMarkView is a viewer that shows no gallery image, so the run's grid outlines none.
type noMarkView struct{ View }

func (noMarkView) BatchMark() string { return "" }

// gridRunner is queueRunner with the run's grid built under a bare viewer.
func gridRunner(t *testing.T) *Runner {
	t.Helper()
	rn := queueRunner(t)
	rn.View = noMarkView{}
	rn.BuildViewColumn(widget.NewLabel("viewer"))
	return rn
}
