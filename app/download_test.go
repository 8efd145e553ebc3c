package app

import (
	"kleinbild/app/modelui"

	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/download"
	"kleinbild/estimate"
)

func TestGenerateAsksWhenItDoesNotFit(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.fit.Machine = func(c estimate.Calibration) estimate.Machine {
		return estimate.Machine{AvailableBytes: 64 << 20, TotalBytes: 64 << 20, Rates: c}
	}
	u.ctl.SetSize(1024, 1024)
	h.waitFor("a warning", 5*time.Second, func() bool {
		return u.ctl.Fit.Visible() && u.ctl.Fit.Importance == widget.DangerImportance
	})
	if !strings.HasPrefix(u.ctl.Fit.Text, "Does not fit") {
		t.Errorf("fit line %q", u.ctl.Fit.Text)
	}
	test.Type(u.ctl.Prompt, "too big")
	test.Tap(u.ctl.Generate)
	if u.run.Current() != nil {
		t.Fatal("a generation that does not fit started without asking")
	}
	h.tapDialogButton("Cancel")
	if u.run.Current() != nil || fake.calls.Load() != 0 {
		t.Fatal("cancelled confirmation still generated")
	}
	test.Tap(u.ctl.Generate)
	h.tapDialogButton("Generate anyway")
	if u.run.Current() == nil {
		t.Fatal("'Generate anyway' did not start the generation")
	}
	h.waitFor("the run", 10*time.Second, func() bool { return u.run.Current() == nil })
}

// The first-start page shows the download's progress line without scrolling on a laptop
// screen. (Before: it sat below the visible area.)
func TestSetupGuideShowsDownloadProgress(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	u := h.ui
	if !u.view.Setup.Visible() {
		t.Fatal("no setup guide without a model")
	}
	if m := windowMin(h.win); m.Width > laptopWindow.Width || m.Height > laptopWindow.Height {
		t.Errorf("the window cannot be smaller than %v", m)
	}
	h.win.Resize(laptopWindow)
	p := u.view.SetupDownload
	u.model.DL = &modelui.DownloadRun{Variant: p.Selected(), Dir: modelui.CleanDir(p.Dest.Text), Running: true, Cancel: func() {},
		Last: download.Progress{Phase: download.PhaseDownloading, Bytes: 3 << 30, TotalBytes: 16 << 30, Rate: 12e6, ETA: 20 * time.Minute,
			File: filepath.Join("transformer", "diffusion_pytorch_model-00001-of-00002.safetensors")}}
	u.model.RefreshDownloads()
	requireShown(t, h.win, "download progress", p.Bar, p.Detail, p.Pause)

	// Before the size is known, the busy bar takes the same place.
	u.model.DL.Last = download.Progress{Phase: download.PhaseListing}
	u.model.RefreshDownloads()
	requireShown(t, h.win, "download progress", p.Busy, p.Detail)
	u.model.DL.Running = false
	u.model.DL = nil
	u.model.RefreshDownloads()
}
