package app

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/hub"
)

// offlineHub points the Hub endpoint at a closed port: every request fails to connect.
func offlineHub(t *testing.T) {
	newTestHub(t, hub.Variants()[0].Repo) // isolates tokens and caches
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close()
	t.Setenv("HF_ENDPOINT", url)
}

// Issue 12, defect 1: without a connection the panel says so within seconds of the first
// failed lookup, shows an indeterminate bar while the total is unknown, and speaks plainly.
func TestDownloadWithoutConnection(t *testing.T) {
	offlineHub(t)
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	u := h.ui
	u.model.hubOpts = hub.Options{RetryDelay: 2 * time.Second, MaxRetryDelay: 2 * time.Second, MaxRetries: 3,
		ProgressInterval: 10 * time.Millisecond}
	p := u.view.setupDownload
	test.Tap(p.start)
	if p.bar.Visible() || !p.busy.Visible() {
		t.Errorf("while listing: determinate bar visible %v (value %v), indeterminate visible %v", p.bar.Visible(), p.bar.Value, p.busy.Visible())
	}
	h.waitFor("the no-connection notice", 1500*time.Millisecond, func() bool {
		return strings.Contains(p.msg.String(), "No connection to Hugging Face")
	})
	if !u.model.dl.running || !p.msg.Visible() {
		t.Errorf("notice should show while still retrying: running %v, visible %v", u.model.dl.running, p.msg.Visible())
	}
	test.Tap(p.pause)
	h.waitFor("the stop", 5*time.Second, func() bool { return !u.model.dl.running })

	// Retries used up: a plain message, no Go error text, a button that says what it does.
	u.model.hubOpts = hub.Options{RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond, MaxRetries: 2}
	test.Tap(p.start)
	h.waitFor("the download to stop", 10*time.Second, func() bool { return !u.model.dl.running })
	msg := p.msg.String()
	for _, bad := range []string{"dial", "tcp", "127.0.0.1", "giving up", "Paused"} {
		if strings.Contains(msg, bad) || strings.Contains(p.detail.Text, bad) {
			t.Errorf("technical or wrong words %q: message %q, detail %q", bad, msg, p.detail.Text)
		}
	}
	if !strings.Contains(msg, "No connection to Hugging Face") || p.start.Text != "Try again" || !strings.Contains(msg, "Try again") {
		t.Errorf("after failing: message %q, button %q", msg, p.start.Text)
	}
	if p.bar.Visible() && p.bar.Value >= 1 {
		t.Errorf("the bar shows %v without a known total", p.bar.Value)
	}
}

// findRichText returns the first RichText inside o whose text contains s.
func findRichText(o fyne.CanvasObject, s string) *widget.RichText {
	switch v := o.(type) {
	case *widget.RichText:
		if strings.Contains(v.String(), s) {
			return v
		}
		return nil
	case *fyne.Container:
		for _, c := range v.Objects {
			if r := findRichText(c, s); r != nil {
				return r
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if r := findRichText(c, s); r != nil {
				return r
			}
		}
	}
	return nil
}

// brokenVAEModel copies the tiny model with its VAE weights cut in half.
func brokenVAEModel(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "broken")
	if err := os.CopyFS(dir, os.DirFS(tinyModel(t))); err != nil {
		t.Fatal(err)
	}
	vae := filepath.Join(dir, "vae", "diffusion_pytorch_model.safetensors")
	st, err := os.Stat(vae)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(vae, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Issue 12, defect 5: a folder with a truncated VAE is found out when it is chosen, not at
// Generate, with a short message naming the file.
func TestModelFolderCheckedWhenChosen(t *testing.T) {
	broken := brokenVAEModel(t)
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	u := h.ui

	// The model dialog: checking, then the problem instead of ✓.
	u.ShowModelDialog()
	top := h.win.Canvas().Overlays().Top()
	var path *widget.Entry
	var find func(o fyne.CanvasObject)
	find = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Entry:
			if path == nil && strings.Contains(v.PlaceHolder, "Model folder") {
				path = v
			}
		case *fyne.Container:
			for _, c := range v.Objects {
				find(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				find(c)
			}
		}
	}
	find(top)
	if path == nil {
		t.Fatal("no model folder entry in the dialog")
	}
	path.SetText(broken)
	use := findButton(top, "Use this model")
	h.waitFor("the check in the dialog", 10*time.Second, func() bool {
		return findRichText(top, "damaged") != nil
	})
	if findRichText(top, "✓") != nil || !use.Disabled() {
		t.Errorf("dialog shows ✓ (or allows use) for a truncated VAE")
	}
	if rt := findRichText(top, "damaged"); len(rt.String()) > 200 || !strings.Contains(rt.String(), "vae/diffusion_pytorch_model.safetensors") {
		t.Errorf("message too long: %q", rt.String())
	}
	h.tapDialogButton("Close")

	// Choosing it directly (setup page, remembered folder): found in the background.
	u.SetModelDir(broken, true)
	h.waitFor("the background check", 10*time.Second, func() bool { return u.model.err != nil })
	banner := u.errorText()
	if !strings.Contains(banner, "vae/diffusion_pytorch_model.safetensors") || len(banner) > 240 {
		t.Errorf("banner %q", banner)
	}
	if strings.Contains(u.model.button.Text, "distilled") {
		t.Errorf("model button %q", u.model.button.Text)
	}

	// A good folder still passes.
	if err := u.SetModelDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if u.model.err != nil {
		t.Errorf("tiny model: %v", u.model.err)
	}
}
