package modelui

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

	"kleinbild/app/internal/uitest"
	"kleinbild/app/settings"
	"kleinbild/download"
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
	h := newHarness(t, data, "")
	m := h.m
	m.hubOpts = fastHub()
	p, _ := m.NewDownloadPanel() // the setup guide's
	dest := filepath.Join(data, "models", "klein-4b")
	if p.Dest.Text != dest || p.start.Text != "Download" || p.Pause.Visible() || p.Bar.Visible() {
		t.Fatalf("before: dest %q, button %q, pause visible %v", p.Dest.Text, p.start.Text, p.Pause.Visible())
	}
	if !strings.Contains(p.variant.Selected, "about 16.0 GB") || !strings.Contains(p.variant.Options[choiceIndex("klein-9b")], "gated") {
		t.Errorf("variant menu %q", p.variant.Options)
	}

	test.Tap(p.start)
	h.WaitFor("download progress", 10*time.Second, func() bool {
		return m.DL.Last.Phase == download.PhaseDownloading && m.DL.Last.Bytes > 0 && p.Bar.Value > 0
	})
	if !p.Pause.Visible() || p.start.Disabled() == false || !strings.Contains(p.Detail.Text, " of ") {
		t.Errorf("while downloading: pause visible %v, start %q, detail %q", p.Pause.Visible(), p.start.Text, p.Detail.Text)
	}
	// The model dialog shows the same download.
	m.ShowDialog()
	dp := m.dlPanels[len(m.dlPanels)-1]
	h.WaitFor("progress in the dialog", 5*time.Second, func() bool { return dp.Bar.Visible() && dp.Pause.Visible() })
	h.TapDialogButton("Close")
	if len(m.dlPanels) != 1 {
		t.Errorf("%d download panels registered after closing the dialog", len(m.dlPanels))
	}

	test.Tap(p.Pause)
	h.WaitFor("the pause", 5*time.Second, func() bool { return !m.DL.Running })
	if p.start.Text != "Resume download" || p.Pause.Visible() || !strings.HasPrefix(p.Detail.Text, "Paused at") {
		t.Errorf("paused: button %q, detail %q", p.start.Text, p.Detail.Text)
	}
	if !partialDownload(dest) || m.dir != "" || h.sh.ErrorText() != "" {
		t.Fatalf("paused: partial %v, model %q, banner %q", partialDownload(dest), m.dir, h.sh.ErrorText())
	}
	h.close()

	// The next start offers to resume the same folder.
	th.release()
	h2 := newHarness(t, data, "")
	m2 := h2.m
	m2.hubOpts = fastHub()
	p2, _ := m2.NewDownloadPanel()
	if p2.Dest.Text != dest || p2.start.Text != "Resume download" {
		t.Fatalf("after restart: dest %q, button %q", p2.Dest.Text, p2.start.Text)
	}
	before := th.served.Load()
	test.Tap(p2.start)
	h2.WaitFor("the download to complete and the model to be selected", 30*time.Second, func() bool {
		return m2.dir == dest && m2.DL == nil
	})
	if fetched := th.served.Load() - before; fetched >= th.total() {
		t.Errorf("resume fetched %d bytes of %d: nothing was reused", fetched, th.total())
	}
	if m2.err != nil || h2.sh.ErrorText() != "" {
		t.Fatalf("model %v, banner %q", m2.err, h2.sh.ErrorText())
	}
	if _, err := inspectModel(dest); err != nil {
		t.Errorf("inspect: %v", err)
	}
	rep, err := download.Validate(context.Background(), dest, download.ValidateOptions{Hash: true})
	if err != nil || !rep.OK() {
		t.Errorf("validate: %v %v", err, rep.Err())
	}
	// The window's setup guide shows while the last Changed says the model is unusable.
	setup := len(h2.changes) == 0 || !h2.changes[len(h2.changes)-1].usable
	if setup || !strings.Contains(m2.button.Text, "distilled") || !strings.Contains(h2.sh.Status.Text, "ready") {
		t.Errorf("after download: setup visible %v, model button %q, status %q", setup, m2.button.Text, h2.sh.Status.Text)
	}
	h2.Settle()
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
	h := newHarness(t, data, "")
	m := h.m
	m.hubOpts = fastHub()
	p, _ := m.NewDownloadPanel()
	if p.token.Text != "" {
		t.Fatalf("token prefilled with %q", p.token.Text)
	}
	test.Tap(p.start)
	h.WaitFor("the download to fail", 10*time.Second, func() bool { return m.DL != nil && !m.DL.Running })
	if !errors.Is(m.DL.err, download.ErrAuth) || !p.msg.Visible() || !strings.Contains(p.msg.String(), "needs a Hugging Face access token") {
		t.Fatalf("error %v, message %q", m.DL.err, p.msg.String())
	}
	if !hasLink(p.msg, tokensPage) || !hasLink(p.msg, th.srv.URL+"/"+th.repo) {
		t.Errorf("message lacks the token and licence links: %+v", p.msg.Segments)
	}

	// With the token (remembered) it completes.
	test.Type(p.token, "hf_test")
	test.Tap(p.remember)
	test.Tap(p.start)
	h.WaitFor("the download to complete", 30*time.Second, func() bool { return m.DL == nil && m.dir != "" })
	if m.err != nil || p.msg.Visible() {
		t.Errorf("model %v, message visible %v", m.err, p.msg.Visible())
	}
	h.Settle()
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
	h := newHarness(t, t.TempDir(), "")
	m := h.m
	p, _ := m.NewDownloadPanel()
	b := uitest.FindButton(p.cached, "Use existing copy")
	if b == nil {
		t.Fatal("no 'Use existing copy' button for the cached snapshot")
	}
	test.Tap(b)
	if m.dir != snap || m.err != nil {
		t.Errorf("model %q (%v)", m.dir, m.err)
	}
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
	h := newHarness(t, t.TempDir(), "")
	m := h.m
	m.hubOpts = download.Options{RetryDelay: 2 * time.Second, MaxRetryDelay: 2 * time.Second, MaxRetries: 3,
		ProgressInterval: 10 * time.Millisecond}
	p, _ := m.NewDownloadPanel()
	test.Tap(p.start)
	if p.Bar.Visible() || !p.Busy.Visible() {
		t.Errorf("while listing: determinate bar visible %v (value %v), indeterminate visible %v", p.Bar.Visible(), p.Bar.Value, p.Busy.Visible())
	}
	h.WaitFor("the no-connection notice", 1500*time.Millisecond, func() bool {
		return strings.Contains(p.msg.String(), "No connection to Hugging Face")
	})
	if !m.DL.Running || !p.msg.Visible() {
		t.Errorf("notice should show while still retrying: running %v, visible %v", m.DL.Running, p.msg.Visible())
	}
	test.Tap(p.Pause)
	h.WaitFor("the stop", 5*time.Second, func() bool { return !m.DL.Running })

	// Retries used up: a plain message, no Go error text, a button that says what it does.
	m.hubOpts = download.Options{RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond, MaxRetries: 2}
	test.Tap(p.start)
	h.WaitFor("the download to stop", 10*time.Second, func() bool { return !m.DL.Running })
	msg := p.msg.String()
	for _, bad := range []string{"dial", "tcp", "127.0.0.1", "giving up", "Paused"} {
		if strings.Contains(msg, bad) || strings.Contains(p.Detail.Text, bad) {
			t.Errorf("technical or wrong words %q: message %q, detail %q", bad, msg, p.Detail.Text)
		}
	}
	if !strings.Contains(msg, "No connection to Hugging Face") || p.start.Text != "Try again" || !strings.Contains(msg, "Try again") {
		t.Errorf("after failing: message %q, button %q", msg, p.start.Text)
	}
	if p.Bar.Visible() && p.Bar.Value >= 1 {
		t.Errorf("the bar shows %v without a known total", p.Bar.Value)
	}
}
