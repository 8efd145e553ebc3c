package app

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// Issue 28 item 6: at 1366×768 a 1024² image gets at least half the window's height (it got
// about 270 px below three rows of labelled action buttons); the actions are one toolbar
// row, and the "More" menu shows where the row is too narrow to show them all (that it
// holds every action is tested in app/galleryui).
func TestImageGetsTheRoom(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, dir, "square.png", 1024, 1024, nil)
	h := newHarness(t, data, tinyModel(t), newFakeGen().open)
	u := h.ui
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.waitShownImage(e)
	for _, size := range []fyne.Size{fyne.NewSize(1366, 768), laptopWindow, fyne.NewSize(1008, 552)} {
		h.win.Resize(size)
		relayout(h.win.Canvas().Content())
		_, area, ok := shownRect(h.win.Canvas().Content(), u.view.Image)
		if !ok {
			t.Fatalf("%v: the image is not shown", size)
		}
		side := min(area.Width, area.Height) // a square image fitted in the area
		if side < size.Height/2 && size.Width >= 1280 {
			t.Errorf("%v window: the image is %.0f px tall, under half the window", size, side)
		}
		t.Logf("%v window: image %.0f px tall (%.0f %%)", size, side, 100*side/size.Height)
		requireShown(t, h.win, "the actions' menu", u.view.MoreBtn)
		if size.Width >= 1280 {
			requireShown(t, h.win, "the first actions", u.view.ReuseBtn, u.view.SeedBtn, u.view.DeleteBtn)
		}
	}
}

// Issue 28 item 9: a run's progress line gets the estimate's phase times (decoding
// included), later images of a job neither load nor read the prompt.
func TestPhasePlanForTheProgress(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	u.ctl.Prompt.SetText("a lighthouse")
	h.waitFor("the estimate with a time", 10*time.Second, func() bool { r, ok := u.fit.Estimate(); return ok && r.Seconds > 0 })
	f, ok := u.ctl.ReadForm()
	if !ok {
		t.Fatal("the form does not read")
	}
	j := u.run.JobFromForm(f)
	first, later := u.fit.PhasePlan(j, true), u.fit.PhasePlan(j, false)
	if first.Denoise <= 0 || first.Decode <= 0 || first.Encode <= 0 {
		t.Fatalf("plan %+v", first)
	}
	if later.Load != 0 || later.Encode != 0 || later.Denoise != first.Denoise {
		t.Errorf("a later image's plan %+v (first %+v)", later, first)
	}
}
