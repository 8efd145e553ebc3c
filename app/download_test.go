package app

import (
	"kleinbild/app/form"
	"kleinbild/app/modelui"

	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/settings"
	"kleinbild/download"
	"kleinbild/estimate"
)

// testHub imitates the Hugging Face Hub serving the tiny model as one repository: the
// listing API and the resolve endpoint with range requests.
type testHub struct {
	srv   *httptest.Server
	repo  string
	files map[string][]byte
	more  map[string]map[string][]byte // further repositories served (repo -> files)
	token string                       // when set, file downloads need it (a gated repository)

	gate     chan struct{} // while open, big files stop at their middle until it is closed
	gateOnce sync.Once
	served   atomic.Int64
}

func newTestHub(t *testing.T, repo string) *testHub {
	t.Helper()
	h := &testHub{repo: repo, files: map[string][]byte{}}
	root := tinyModel(t)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if !download.Needed(filepath.ToSlash(rel)) {
			return nil
		}
		b, err := os.ReadFile(p)
		h.files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	t.Setenv("HF_ENDPOINT", h.srv.URL)
	// Keep real tokens and caches of the machine out of the test.
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	tmp := t.TempDir()
	t.Setenv("HF_TOKEN_PATH", filepath.Join(tmp, "no-token"))
	t.Setenv("HF_HOME", tmp)
	t.Setenv("HF_HUB_CACHE", filepath.Join(tmp, "hub"))
	return h
}

func (h *testHub) total() int64 {
	var n int64
	for _, b := range h.files {
		n += int64(len(b))
	}
	return n
}

// hold makes big files stop half way until release.
func (h *testHub) hold()    { h.gate = make(chan struct{}) }
func (h *testHub) release() { h.gateOnce.Do(func() { close(h.gate) }) }

func (h *testHub) serve(w http.ResponseWriter, r *http.Request) {
	repo, files := h.repo, h.files
	for name, f := range h.more {
		if r.URL.Path == "/api/models/"+name || strings.HasPrefix(r.URL.Path, "/"+name+"/") {
			repo, files = name, f
		}
	}
	if r.URL.Path == "/api/models/"+repo {
		type lfs struct {
			SHA256 string `json:"sha256"`
			Size   int64  `json:"size"`
		}
		type sib struct {
			RFilename string `json:"rfilename"`
			Size      int64  `json:"size"`
			BlobID    string `json:"blobId"`
			LFS       *lfs   `json:"lfs,omitempty"`
		}
		var sibs []sib
		for p, b := range files {
			s := sib{RFilename: p, Size: int64(len(b)), BlobID: gitBlob(b)}
			if strings.HasSuffix(p, ".safetensors") || strings.HasSuffix(p, ".gguf") {
				sum := sha256.Sum256(b)
				s.Size, s.BlobID = 135, strings.Repeat("ab", 20)
				s.LFS = &lfs{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b))}
			}
			sibs = append(sibs, s)
		}
		gated := any(false)
		if h.token != "" {
			gated = "manual"
		}
		json.NewEncoder(w).Encode(map[string]any{"id": repo, "sha": strings.Repeat("c", 40), "gated": gated, "siblings": sibs})
		return
	}
	p, ok := strings.CutPrefix(r.URL.Path, "/"+repo+"/resolve/main/")
	data, found := files[p]
	if !ok || !found {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.NotFound(w, r)
		return
	}
	if h.token != "" && r.Header.Get("Authorization") != "Bearer "+h.token {
		w.Header().Set("X-Error-Code", "GatedRepo")
		http.Error(w, "gated", http.StatusUnauthorized)
		return
	}
	w.Header().Set("ETag", `"`+gitBlob(data)+`"`)
	var rd io.ReadSeeker = bytes.NewReader(data)
	if h.gate != nil && len(data) > 1<<20 {
		rd = &gatedReader{r: bytes.NewReader(data), half: int64(len(data) / 2), gate: h.gate, ctx: r.Context()}
	}
	http.ServeContent(&countWriter{ResponseWriter: w, n: &h.served}, r, "", time.Time{}, rd)
}

func gitBlob(b []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(b))
	s.Write(b)
	return hex.EncodeToString(s.Sum(nil))
}

// gatedReader serves the first half of a file, then waits for its gate.
type gatedReader struct {
	r    *bytes.Reader
	half int64
	gate chan struct{}
	ctx  context.Context
}

func (g *gatedReader) Seek(off int64, whence int) (int64, error) { return g.r.Seek(off, whence) }

func (g *gatedReader) Read(p []byte) (int, error) {
	pos := g.r.Size() - int64(g.r.Len())
	select {
	case <-g.gate:
		return g.r.Read(p)
	default:
	}
	if pos < g.half {
		return g.r.Read(p[:min(int64(len(p)), g.half-pos)])
	}
	select {
	case <-g.gate:
		return g.r.Read(p)
	case <-g.ctx.Done():
		return 0, g.ctx.Err()
	}
}

type countWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// fastHub are download options for tests: frequent reports, small ranges.
func fastHub() download.Options {
	return download.Options{Connections: 4, ChunkBytes: 512 << 10, ProgressInterval: 10 * time.Millisecond,
		RetryDelay: time.Millisecond, MaxRetryDelay: 5 * time.Millisecond, StallTimeout: 10 * time.Second}
}

func TestDownloadPauseResumeAcrossRestart(t *testing.T) {
	th := newTestHub(t, download.Variants()[0].Repo)
	th.hold()
	defer th.release()
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, "", fake.open)
	u := h.ui
	u.model.HubOpts = fastHub()
	p := u.view.SetupDownload
	dest := filepath.Join(data, "models", "klein-4b")
	if p.Dest.Text != dest || p.Start.Text != "Download" || p.Pause.Visible() || p.Bar.Visible() {
		t.Fatalf("before: dest %q, button %q, pause visible %v", p.Dest.Text, p.Start.Text, p.Pause.Visible())
	}
	if !strings.Contains(p.Variant.Selected, "about 16.0 GB") || !strings.Contains(p.Variant.Options[modelui.ChoiceIndex("klein-9b")], "gated") {
		t.Errorf("variant menu %q", p.Variant.Options)
	}

	test.Tap(p.Start)
	h.waitFor("download progress", 10*time.Second, func() bool {
		return u.model.DL.Last.Phase == download.PhaseDownloading && u.model.DL.Last.Bytes > 0 && p.Bar.Value > 0
	})
	if !p.Pause.Visible() || p.Start.Disabled() == false || !strings.Contains(p.Detail.Text, " of ") {
		t.Errorf("while downloading: pause visible %v, start %q, detail %q", p.Pause.Visible(), p.Start.Text, p.Detail.Text)
	}
	// The model dialog shows the same download.
	u.ShowModelDialog()
	dp := u.model.DLPanels[len(u.model.DLPanels)-1]
	h.waitFor("progress in the dialog", 5*time.Second, func() bool { return dp.Bar.Visible() && dp.Pause.Visible() })
	h.tapDialogButton("Close")
	if len(u.model.DLPanels) != 1 {
		t.Errorf("%d download panels registered after closing the dialog", len(u.model.DLPanels))
	}

	test.Tap(p.Pause)
	h.waitFor("the pause", 5*time.Second, func() bool { return !u.model.DL.Running })
	if p.Start.Text != "Resume download" || p.Pause.Visible() || !strings.HasPrefix(p.Detail.Text, "Paused at") {
		t.Errorf("paused: button %q, detail %q", p.Start.Text, p.Detail.Text)
	}
	if !modelui.PartialDownload(dest) || u.model.Dir != "" || u.ErrorText() != "" {
		t.Fatalf("paused: partial %v, model %q, banner %q", modelui.PartialDownload(dest), u.model.Dir, u.ErrorText())
	}
	h.close()

	// The next start offers to resume the same folder.
	th.release()
	h2 := newHarness(t, data, "", fake.open)
	u2 := h2.ui
	u2.model.HubOpts = fastHub()
	p2 := u2.view.SetupDownload
	if p2.Dest.Text != dest || p2.Start.Text != "Resume download" {
		t.Fatalf("after restart: dest %q, button %q", p2.Dest.Text, p2.Start.Text)
	}
	before := th.served.Load()
	test.Tap(p2.Start)
	h2.waitFor("the download to complete and the model to be selected", 30*time.Second, func() bool {
		return u2.model.Dir == dest && u2.model.DL == nil
	})
	if fetched := th.served.Load() - before; fetched >= th.total() {
		t.Errorf("resume fetched %d bytes of %d: nothing was reused", fetched, th.total())
	}
	if u2.model.Err != nil || u2.ErrorText() != "" {
		t.Fatalf("model %v, banner %q", u2.model.Err, u2.ErrorText())
	}
	if _, err := modelui.InspectModel(dest); err != nil {
		t.Errorf("inspect: %v", err)
	}
	rep, err := download.Validate(context.Background(), dest, download.ValidateOptions{Hash: true})
	if err != nil || !rep.OK() {
		t.Errorf("validate: %v %v", err, rep.Err())
	}
	if u2.view.Setup.Visible() || !strings.Contains(u2.model.Button.Text, "distilled") || !strings.Contains(u2.Status.Text, "ready") {
		t.Errorf("after download: setup visible %v, model button %q, status %q", u2.view.Setup.Visible(), u2.model.Button.Text, u2.Status.Text)
	}
	h2.settle()
	h2.close()
	s, err := settings.Load(filepath.Join(data, "settings.json"))
	if err != nil || s.ModelDir != dest || s.DownloadDir != "" || s.HFToken != "" {
		t.Errorf("settings %+v (%v)", s, err)
	}
}

func TestDownloadNeedsToken(t *testing.T) {
	th := newTestHub(t, download.Variants()[0].Repo)
	th.token = "hf_test"
	data := t.TempDir()
	h := newHarness(t, data, "", newFakeGen().open)
	u := h.ui
	u.model.HubOpts = fastHub()
	p := u.view.SetupDownload
	if p.Token.Text != "" {
		t.Fatalf("token prefilled with %q", p.Token.Text)
	}
	test.Tap(p.Start)
	h.waitFor("the download to fail", 10*time.Second, func() bool { return u.model.DL != nil && !u.model.DL.Running })
	if !errors.Is(u.model.DL.Err, download.ErrAuth) || !p.Msg.Visible() || !strings.Contains(p.Msg.String(), "needs a Hugging Face access token") {
		t.Fatalf("error %v, message %q", u.model.DL.Err, p.Msg.String())
	}
	if !hasLink(p.Msg, modelui.TokensPage) || !hasLink(p.Msg, th.srv.URL+"/"+th.repo) {
		t.Errorf("message lacks the token and licence links: %+v", p.Msg.Segments)
	}

	// With the token (remembered) it completes.
	test.Type(p.Token, "hf_test")
	test.Tap(p.Remember)
	test.Tap(p.Start)
	h.waitFor("the download to complete", 30*time.Second, func() bool { return u.model.DL == nil && u.model.Dir != "" })
	if u.model.Err != nil || p.Msg.Visible() {
		t.Errorf("model %v, message visible %v", u.model.Err, p.Msg.Visible())
	}
	h.settle()
	if s, _ := settings.Load(filepath.Join(data, "settings.json")); s.HFToken != "hf_test" {
		t.Errorf("token not remembered: %+v", s)
	}
}

func hasLink(rt *widget.RichText, url string) bool {
	for _, s := range rt.Segments {
		if l, ok := s.(*widget.HyperlinkSegment); ok && l.URL != nil && l.URL.String() == url {
			return true
		}
	}
	return false
}

func TestUseCachedSnapshot(t *testing.T) {
	newTestHub(t, download.Variants()[0].Repo) // isolates the Hugging Face cache
	snap := filepath.Join(download.CacheDir(), "models--black-forest-labs--FLUX.2-klein-4B", "snapshots", "abcdef0123")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	root := tinyModel(t)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(snap, e.Name())); err != nil {
			t.Skip("symlinks unavailable:", err)
		}
	}
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	u := h.ui
	b := findButton(u.view.SetupDownload.Cached, "Use existing copy")
	if b == nil {
		t.Fatal("no 'Use existing copy' button for the cached snapshot")
	}
	test.Tap(b)
	if u.model.Dir != snap || u.model.Err != nil {
		t.Errorf("model %q (%v)", u.model.Dir, u.model.Err)
	}
}

func TestFitLine(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	fit := u.ctl.Fit
	h.waitFor("the fit line with a time", 5*time.Second, func() bool {
		return fit.Visible() && strings.Contains(fit.Text, " · about ")
	})
	first := fit.Text
	t.Logf("512×512: %q", first)
	u.ctl.SetSize(1024, 1024)
	h.waitFor("the fit line to follow the size", 5*time.Second, func() bool { return fit.Text != first })
	t.Logf("1024×1024: %q", fit.Text)
	u.ctl.Width.SetText("1000")
	h.settle()
	time.Sleep(2 * form.FitDebounce)
	h.settle()
	if fit.Visible() {
		t.Errorf("fit line shown for an invalid size: %q", fit.Text)
	}
}

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

// offlineHub points the Hub endpoint at a closed port: every request fails to connect.
func offlineHub(t *testing.T) {
	newTestHub(t, download.Variants()[0].Repo) // isolates tokens and caches
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
	u.model.HubOpts = download.Options{RetryDelay: 2 * time.Second, MaxRetryDelay: 2 * time.Second, MaxRetries: 3,
		ProgressInterval: 10 * time.Millisecond}
	p := u.view.SetupDownload
	test.Tap(p.Start)
	if p.Bar.Visible() || !p.Busy.Visible() {
		t.Errorf("while listing: determinate bar visible %v (value %v), indeterminate visible %v", p.Bar.Visible(), p.Bar.Value, p.Busy.Visible())
	}
	h.waitFor("the no-connection notice", 1500*time.Millisecond, func() bool {
		return strings.Contains(p.Msg.String(), "No connection to Hugging Face")
	})
	if !u.model.DL.Running || !p.Msg.Visible() {
		t.Errorf("notice should show while still retrying: running %v, visible %v", u.model.DL.Running, p.Msg.Visible())
	}
	test.Tap(p.Pause)
	h.waitFor("the stop", 5*time.Second, func() bool { return !u.model.DL.Running })

	// Retries used up: a plain message, no Go error text, a button that says what it does.
	u.model.HubOpts = download.Options{RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond, MaxRetries: 2}
	test.Tap(p.Start)
	h.waitFor("the download to stop", 10*time.Second, func() bool { return !u.model.DL.Running })
	msg := p.Msg.String()
	for _, bad := range []string{"dial", "tcp", "127.0.0.1", "giving up", "Paused"} {
		if strings.Contains(msg, bad) || strings.Contains(p.Detail.Text, bad) {
			t.Errorf("technical or wrong words %q: message %q, detail %q", bad, msg, p.Detail.Text)
		}
	}
	if !strings.Contains(msg, "No connection to Hugging Face") || p.Start.Text != "Try again" || !strings.Contains(msg, "Try again") {
		t.Errorf("after failing: message %q, button %q", msg, p.Start.Text)
	}
	if p.Bar.Visible() && p.Bar.Value >= 1 {
		t.Errorf("the bar shows %v without a known total", p.Bar.Value)
	}
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
