package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"kleinbild/engine"
	"kleinbild/estimate"
)

// Issue 22, item 7: the fit line's time includes loading the model until it is loaded; a
// model kept loaded between runs costs nothing.
func TestFitLineIncludesTheModelLoadOnlyBeforeItIsLoaded(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	h.waitFor("a time on the fit line", 10*time.Second, func() bool {
		return u.ctl.fit.Visible() && strings.Contains(u.ctl.fit.Text, " · about ")
	})
	cold := u.ctl.fit.Text
	if !strings.HasSuffix(cold, ", model load included") {
		t.Errorf("before the first run: %q", cold)
	}
	rep, ok := u.fit.estimate()
	if !ok || rep.PhaseSeconds.Load <= 0 || rep.Seconds <= rep.PhaseSeconds.Load {
		t.Fatalf("estimate before the first run: load %v s of %v s (%v)", rep.PhaseSeconds.Load, rep.Seconds, ok)
	}
	coldSeconds := rep.Seconds

	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	h.waitFor("the load to leave the fit line", 10*time.Second, func() bool {
		return !strings.Contains(u.ctl.fit.Text, "model load")
	})
	if !strings.Contains(u.ctl.fit.Text, " · about ") {
		t.Errorf("after the first run: %q", u.ctl.fit.Text)
	}
	rep, _ = u.fit.estimate()
	if rep.PhaseSeconds.Load != 0 || rep.Seconds >= coldSeconds {
		t.Errorf("loaded model: load %v s, total %v s (was %v s)", rep.PhaseSeconds.Load, rep.Seconds, coldSeconds)
	}
	if j, ok := u.fit.estimateJob(&job{Req: engine.Request{Settings: engine.Settings{Width: 256, Height: 256}}, Count: 1}); !ok || j.PhaseSeconds.Load != 0 {
		t.Errorf("a queued job on the loaded model: load %v s (%v)", j.PhaseSeconds.Load, ok)
	}

	// Once the model is closed, the next run loads it again.
	u.run.CloseGenerator()
	u.fit.update()
	if !strings.HasSuffix(u.ctl.fit.Text, ", model load included") {
		t.Errorf("after the model was closed: %q", u.ctl.fit.Text)
	}
}

// The fit line names the included load after the image count.
func TestFitTextNamesTheLoad(t *testing.T) {
	rep := estimate.Report{Verdict: estimate.Fits, PeakBytes: 1e9, AvailableBytes: 8e9, Seconds: 12,
		PhaseSeconds: estimate.Phases{Load: 4, Denoise: 8}}
	if got, want := fitTextFor(rep, 3), "Fits: needs about 1.0 GB of 8.0 GB available · about 12 s for 3 images, model load included"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	rep.PhaseSeconds.Load = 0
	if got := fitTextFor(rep, 1); strings.Contains(got, "load") {
		t.Errorf("loaded model: %q", got)
	}
}

// The fit line's box keeps its height when the load note goes (a job started), and fits the
// text again after any other change.
func TestFitBoxKeepsItsHeightWhenTheLoadNoteGoes(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	f, l := &h.ui.fit, h.ui.ctl.fit
	long := "Fits: needs about 803.1 MB of 24.3 GB available · about 5.7 s for 12 images" + loadNote
	short := strings.TrimSuffix(long, loadNote)
	f.setShown(true)
	// A width at which the note takes one more line.
	width := float32(0)
	for w := float32(120); w <= 600 && width == 0; w += 10 {
		f.steady.width, f.steady.height = 0, 0
		l.SetText(short)
		f.box.Resize(fyne.NewSize(w, 200))
		without := l.MinSize().Height
		l.SetText(long)
		if l.MinSize().Height > without {
			width = w
		}
	}
	if width == 0 {
		t.Fatal("no width at which the note adds a line")
	}
	f.setText(long)
	f.box.Resize(fyne.NewSize(width, f.box.MinSize().Height))
	tall := f.box.MinSize().Height
	f.setText(short)
	if l.MinSize().Height >= tall {
		t.Fatalf("the line is %v px tall without the note, %v with it", l.MinSize().Height, tall)
	}
	if got := f.box.MinSize().Height; got != tall {
		t.Errorf("without the load note the box is %v px tall, %v before", got, tall)
	}
	f.setText("Fits")
	if got := f.box.MinSize().Height; got >= tall {
		t.Errorf("a short line keeps %v px (long line: %v)", got, tall)
	}
}
