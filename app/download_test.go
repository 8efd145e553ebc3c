package app

import (
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
	u.model.hubOpts = fastHub()
	p := u.view.setupDownload
	dest := filepath.Join(data, "models", "klein-4b")
	if p.dest.Text != dest || p.start.Text != "Download" || p.pause.Visible() || p.bar.Visible() {
		t.Fatalf("before: dest %q, button %q, pause visible %v", p.dest.Text, p.start.Text, p.pause.Visible())
	}
	if !strings.Contains(p.variant.Selected, "about 16.0 GB") || !strings.Contains(p.variant.Options[choiceIndex("klein-9b")], "gated") {
		t.Errorf("variant menu %q", p.variant.Options)
	}

	test.Tap(p.start)
	h.waitFor("download progress", 10*time.Second, func() bool {
		return u.model.dl.last.Phase == download.PhaseDownloading && u.model.dl.last.Bytes > 0 && p.bar.Value > 0
	})
	if !p.pause.Visible() || p.start.Disabled() == false || !strings.Contains(p.detail.Text, " of ") {
		t.Errorf("while downloading: pause visible %v, start %q, detail %q", p.pause.Visible(), p.start.Text, p.detail.Text)
	}
	// The model dialog shows the same download.
	u.ShowModelDialog()
	dp := u.model.dlPanels[len(u.model.dlPanels)-1]
	h.waitFor("progress in the dialog", 5*time.Second, func() bool { return dp.bar.Visible() && dp.pause.Visible() })
	h.tapDialogButton("Close")
	if len(u.model.dlPanels) != 1 {
		t.Errorf("%d download panels registered after closing the dialog", len(u.model.dlPanels))
	}

	test.Tap(p.pause)
	h.waitFor("the pause", 5*time.Second, func() bool { return !u.model.dl.running })
	if p.start.Text != "Resume download" || p.pause.Visible() || !strings.HasPrefix(p.detail.Text, "Paused at") {
		t.Errorf("paused: button %q, detail %q", p.start.Text, p.detail.Text)
	}
	if !partialDownload(dest) || u.model.dir != "" || u.ErrorText() != "" {
		t.Fatalf("paused: partial %v, model %q, banner %q", partialDownload(dest), u.model.dir, u.ErrorText())
	}
	h.close()

	// The next start offers to resume the same folder.
	th.release()
	h2 := newHarness(t, data, "", fake.open)
	u2 := h2.ui
	u2.model.hubOpts = fastHub()
	p2 := u2.view.setupDownload
	if p2.dest.Text != dest || p2.start.Text != "Resume download" {
		t.Fatalf("after restart: dest %q, button %q", p2.dest.Text, p2.start.Text)
	}
	before := th.served.Load()
	test.Tap(p2.start)
	h2.waitFor("the download to complete and the model to be selected", 30*time.Second, func() bool {
		return u2.model.dir == dest && u2.model.dl == nil
	})
	if fetched := th.served.Load() - before; fetched >= th.total() {
		t.Errorf("resume fetched %d bytes of %d: nothing was reused", fetched, th.total())
	}
	if u2.model.err != nil || u2.ErrorText() != "" {
		t.Fatalf("model %v, banner %q", u2.model.err, u2.ErrorText())
	}
	if _, err := inspectModel(dest); err != nil {
		t.Errorf("inspect: %v", err)
	}
	rep, err := download.Validate(context.Background(), dest, download.ValidateOptions{Hash: true})
	if err != nil || !rep.OK() {
		t.Errorf("validate: %v %v", err, rep.Err())
	}
	if u2.view.setup.Visible() || !strings.Contains(u2.model.button.Text, "distilled") || !strings.Contains(u2.Status.Text, "ready") {
		t.Errorf("after download: setup visible %v, model button %q, status %q", u2.view.setup.Visible(), u2.model.button.Text, u2.Status.Text)
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
	u.model.hubOpts = fastHub()
	p := u.view.setupDownload
	if p.token.Text != "" {
		t.Fatalf("token prefilled with %q", p.token.Text)
	}
	test.Tap(p.start)
	h.waitFor("the download to fail", 10*time.Second, func() bool { return u.model.dl != nil && !u.model.dl.running })
	if !errors.Is(u.model.dl.err, download.ErrAuth) || !p.msg.Visible() || !strings.Contains(p.msg.String(), "needs a Hugging Face access token") {
		t.Fatalf("error %v, message %q", u.model.dl.err, p.msg.String())
	}
	if !hasLink(p.msg, tokensPage) || !hasLink(p.msg, th.srv.URL+"/"+th.repo) {
		t.Errorf("message lacks the token and licence links: %+v", p.msg.Segments)
	}

	// With the token (remembered) it completes.
	test.Type(p.token, "hf_test")
	test.Tap(p.remember)
	test.Tap(p.start)
	h.waitFor("the download to complete", 30*time.Second, func() bool { return u.model.dl == nil && u.model.dir != "" })
	if u.model.err != nil || p.msg.Visible() {
		t.Errorf("model %v, message visible %v", u.model.err, p.msg.Visible())
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
	b := findButton(u.view.setupDownload.cached, "Use existing copy")
	if b == nil {
		t.Fatal("no 'Use existing copy' button for the cached snapshot")
	}
	test.Tap(b)
	if u.model.dir != snap || u.model.err != nil {
		t.Errorf("model %q (%v)", u.model.dir, u.model.err)
	}
}

func TestFitLine(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	fit := u.ctl.fit
	h.waitFor("the fit line with a time", 5*time.Second, func() bool {
		return fit.Visible() && strings.Contains(fit.Text, " · about ")
	})
	first := fit.Text
	t.Logf("512×512: %q", first)
	u.ctl.setSize(1024, 1024)
	h.waitFor("the fit line to follow the size", 5*time.Second, func() bool { return fit.Text != first })
	t.Logf("1024×1024: %q", fit.Text)
	u.ctl.width.SetText("1000")
	h.settle()
	time.Sleep(2 * fitDebounce)
	h.settle()
	if fit.Visible() {
		t.Errorf("fit line shown for an invalid size: %q", fit.Text)
	}
}

func TestGenerateAsksWhenItDoesNotFit(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.fit.machine = func(c estimate.Calibration) estimate.Machine {
		return estimate.Machine{AvailableBytes: 64 << 20, TotalBytes: 64 << 20, Rates: c}
	}
	u.ctl.setSize(1024, 1024)
	h.waitFor("a warning", 5*time.Second, func() bool {
		return u.ctl.fit.Visible() && u.ctl.fit.Importance == widget.DangerImportance
	})
	if !strings.HasPrefix(u.ctl.fit.Text, "Does not fit") {
		t.Errorf("fit line %q", u.ctl.fit.Text)
	}
	test.Type(u.ctl.prompt, "too big")
	test.Tap(u.ctl.generate)
	if u.run.cur != nil {
		t.Fatal("a generation that does not fit started without asking")
	}
	h.tapDialogButton("Cancel")
	if u.run.cur != nil || fake.calls.Load() != 0 {
		t.Fatal("cancelled confirmation still generated")
	}
	test.Tap(u.ctl.generate)
	h.tapDialogButton("Generate anyway")
	if u.run.cur == nil {
		t.Fatal("'Generate anyway' did not start the generation")
	}
	h.waitFor("the run", 10*time.Second, func() bool { return u.run.cur == nil })
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
	u.model.hubOpts = download.Options{RetryDelay: 2 * time.Second, MaxRetryDelay: 2 * time.Second, MaxRetries: 3,
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
	u.model.hubOpts = download.Options{RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond, MaxRetries: 2}
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

// The first-start page shows the download's progress line without scrolling on a laptop
// screen. (Before: it sat below the visible area.)
func TestSetupGuideShowsDownloadProgress(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	u := h.ui
	if !u.view.setup.Visible() {
		t.Fatal("no setup guide without a model")
	}
	if m := windowMin(h.win); m.Width > laptopWindow.Width || m.Height > laptopWindow.Height {
		t.Errorf("the window cannot be smaller than %v", m)
	}
	h.win.Resize(laptopWindow)
	p := u.view.setupDownload
	u.model.dl = &downloadRun{variant: p.selected(), dir: cleanDir(p.dest.Text), running: true, cancel: func() {},
		last: download.Progress{Phase: download.PhaseDownloading, Bytes: 3 << 30, TotalBytes: 16 << 30, Rate: 12e6, ETA: 20 * time.Minute,
			File: filepath.Join("transformer", "diffusion_pytorch_model-00001-of-00002.safetensors")}}
	u.model.refreshDownloads()
	requireShown(t, h.win, "download progress", p.bar, p.detail, p.pause)

	// Before the size is known, the busy bar takes the same place.
	u.model.dl.last = download.Progress{Phase: download.PhaseListing}
	u.model.refreshDownloads()
	requireShown(t, h.win, "download progress", p.busy, p.detail)
	u.model.dl.running = false
	u.model.dl = nil
	u.model.refreshDownloads()
}
