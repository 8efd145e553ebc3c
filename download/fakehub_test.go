package download

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeFile is one file of a fake repository.
type fakeFile struct {
	data []byte
	lfs  bool
	// listedSize, when non-zero, is the size the listing claims (a lying server).
	listedSize int64
	// served, when set, is what the server sends instead of data (corrupted bytes).
	served []byte
}

// fakeHub imitates the Hub API, the resolve endpoint and a CDN on another host (another
// httptest server) that LFS downloads are redirected to.
type fakeHub struct {
	t     *testing.T
	repo  string
	gated bool
	token string

	mu          sync.Mutex
	files       map[string]*fakeFile
	extra       map[string]map[string]*fakeFile // more repositories (repo -> files); their counters are keyed "repo/path"
	etagSalt    string                          // changes every ETag when set (a re-uploaded file)
	failFirst   map[string]int                  // path -> number of 503 answers before serving
	status      map[string]int                  // path -> fixed error status
	dropAfter   int64                           // close the connection after this many body bytes...
	drops       int                             // ...for this many more responses
	requested   map[string]int                  // resolve requests per path
	rangeReqs   int                             // 206 answers
	ifRangeFull int                             // 200 answers to requests with If-Range (the file changed)
	onServe     func(total int64)

	served      atomic.Int64 // body bytes of file content sent (hub + CDN)
	dropped     atomic.Int64 // connections closed mid-body
	cdnAuthSeen atomic.Bool
	hubAuthSeen atomic.Bool

	hub, cdn *httptest.Server
}

func newFakeHub(t *testing.T, repo string, files map[string]*fakeFile) *fakeHub {
	t.Helper()
	h := &fakeHub{t: t, repo: repo, files: files, failFirst: map[string]int{}, status: map[string]int{}, requested: map[string]int{}}
	h.hub = httptest.NewServer(http.HandlerFunc(h.serveHub))
	h.cdn = httptest.NewServer(http.HandlerFunc(h.serveCDN))
	t.Cleanup(h.hub.Close)
	t.Cleanup(h.cdn.Close)
	// The library reads HF_ENDPOINT like huggingface_hub; keep real tokens out of tests.
	t.Setenv("HF_ENDPOINT", h.hub.URL)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	t.Setenv("HF_TOKEN_PATH", filepath.Join(t.TempDir(), "no-token"))
	return h
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// testRepoFiles is a small FLUX.2-klein-like repository: a sharded text encoder, LFS
// weights of a few hundred kB and files Download must skip.
func testRepoFiles(seed uint64) map[string]*fakeFile {
	rng := rand.New(rand.NewPCG(seed, 7))
	blob := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	js := func(s string) *fakeFile { return &fakeFile{data: []byte(s)} }
	return map[string]*fakeFile{
		"model_index.json":                                {data: []byte(`{"_class_name": "Flux2KleinPipeline", "is_distilled": true}`)},
		"scheduler/scheduler_config.json":                 js(`{"shift": 3.0}`),
		"text_encoder/config.json":                        js(`{"hidden_size": 32}`),
		"text_encoder/model.safetensors.index.json":       js(`{"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}`),
		"text_encoder/model-00001-of-00002.safetensors":   {data: blob(300_000), lfs: true},
		"text_encoder/model-00002-of-00002.safetensors":   {data: blob(140_001), lfs: true},
		"tokenizer/tokenizer.json":                        js(`{"model": {"type": "BPE"}}`),
		"tokenizer/tokenizer_config.json":                 js(`{}`),
		"tokenizer/vocab.json":                            js(`{"a": 0}`),
		"tokenizer/merges.txt":                            js("#version: 0.2\n"),
		"transformer/config.json":                         js(`{"num_attention_heads": 24, "attention_head_dim": 128}`),
		"transformer/diffusion_pytorch_model.safetensors": {data: blob(400_000), lfs: true},
		"vae/config.json":                                 js(`{}`),
		"vae/diffusion_pytorch_model.safetensors":         {data: blob(90_000), lfs: true},
		// Never fetched:
		"README.md":                               js("# klein"),
		".gitattributes":                          js("*.safetensors filter=lfs"),
		"flux-2-klein-4b.safetensors":             {data: blob(50_000), lfs: true},
		"images/teaser.png":                       {data: blob(1000), lfs: true},
		"text_encoder/generation_config.json":     js(`{}`),
		"transformer/diffusion_pytorch_model.bin": {data: blob(1000), lfs: true},
	}
}

// neededTotal is the size of the files Download fetches.
func neededTotal(files map[string]*fakeFile) int64 {
	var n int64
	for p, f := range files {
		if Needed(p) {
			n += int64(len(f.data))
		}
	}
	return n
}

func (h *fakeHub) etag(p string, f *fakeFile) string {
	h.mu.Lock()
	salt := h.etagSalt
	h.mu.Unlock()
	return `"` + sha([]byte(salt + p + string(f.served) + string(f.data)))[:32] + `"`
}

func (h *fakeHub) listing() []byte { return h.listingOf(h.repo) }

// addRepo serves another repository from the same hub.
func (h *fakeHub) addRepo(repo string, files map[string]*fakeFile) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.extra == nil {
		h.extra = map[string]map[string]*fakeFile{}
	}
	h.extra[repo] = files
}

// filesOf returns the files of repo (nil when the hub has no such repository); h.mu held.
func (h *fakeHub) filesOf(repo string) map[string]*fakeFile {
	if repo == h.repo {
		return h.files
	}
	return h.extra[repo]
}

// route finds the repository a request path names: the listing (api) or a file (p).
func (h *fakeHub) route(urlPath string) (repo, p string, api bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	repos := []string{h.repo}
	for r := range h.extra {
		repos = append(repos, r)
	}
	for _, r := range repos {
		if urlPath == "/api/models/"+r {
			return r, "", true
		}
		if rest, ok := strings.CutPrefix(urlPath, "/"+r+"/resolve/main/"); ok {
			return r, rest, false
		}
	}
	return "", "", false
}

// key is the counter key of repo's file p: p for the main repository, else repo/p.
func (h *fakeHub) key(repo, p string) string {
	if repo == h.repo {
		return p
	}
	return repo + "/" + p
}

func (h *fakeHub) listingOf(repo string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	files := h.filesOf(repo)
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
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		f := files[p]
		size := int64(len(f.data))
		if f.listedSize != 0 {
			size = f.listedSize
		}
		s := sib{RFilename: p, Size: size, BlobID: gitBlobID(f.data)}
		if f.lfs {
			s.Size = 135 // the pointer file
			s.BlobID = strings.Repeat("ab", 20)
			s.LFS = &lfs{SHA256: sha(f.data), Size: size}
		}
		sibs = append(sibs, s)
	}
	gated := any(false)
	if h.gated {
		gated = "manual"
	}
	b, _ := json.Marshal(map[string]any{"id": repo, "sha": strings.Repeat("c", 40), "gated": gated, "siblings": sibs})
	return b
}

func (h *fakeHub) serveHub(w http.ResponseWriter, r *http.Request) {
	repo, p, api := h.route(r.URL.Path)
	if api {
		if r.URL.Query().Get("blobs") != "true" {
			http.Error(w, "want blobs=true", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(h.listingOf(repo))
		return
	}
	if repo == "" {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.NotFound(w, r)
		return
	}
	auth := r.Header.Get("Authorization")
	if auth != "" {
		h.hubAuthSeen.Store(true)
	}
	k := h.key(repo, p)
	h.mu.Lock()
	h.requested[k]++
	f := h.filesOf(repo)[p]
	fail := h.failFirst[k]
	if fail > 0 {
		h.failFirst[k]--
	}
	status := h.status[k]
	h.mu.Unlock()
	if h.gated && auth != "Bearer "+h.token {
		w.Header().Set("X-Error-Code", "GatedRepo")
		w.Header().Set("X-Error-Message", "Access to model "+h.repo+" is restricted.")
		http.Error(w, "gated", http.StatusUnauthorized)
		return
	}
	if f == nil {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.NotFound(w, r)
		return
	}
	if status != 0 {
		http.Error(w, "nope", status)
		return
	}
	if fail > 0 {
		http.Error(w, "try later", http.StatusServiceUnavailable)
		return
	}
	if f.lfs {
		// Like the Hub: LFS content lives on a CDN host, behind a signed URL.
		http.Redirect(w, r, h.cdn.URL+"/blobs/"+sha(f.data)+"?path="+url.QueryEscape(p)+"&repo="+url.QueryEscape(repo)+"&X-Signature=abc", http.StatusFound)
		return
	}
	h.serveContent(w, r, p, f)
}

func (h *fakeHub) serveCDN(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		h.cdnAuthSeen.Store(true)
	}
	p, repo := r.URL.Query().Get("path"), r.URL.Query().Get("repo")
	h.mu.Lock()
	f := h.filesOf(repo)[p]
	h.mu.Unlock()
	if f == nil || !strings.HasPrefix(r.URL.Path, "/blobs/") {
		http.NotFound(w, r)
		return
	}
	h.serveContent(w, r, p, f)
}

// serveContent answers GET with Range / If-Range support (http.ServeContent), counting the
// bytes and dropping connections as configured.
func (h *fakeHub) serveContent(w http.ResponseWriter, r *http.Request, p string, f *fakeFile) {
	data := f.data
	if f.served != nil {
		data = f.served
	}
	w.Header().Set("ETag", h.etag(p, f))
	cw := &countingWriter{ResponseWriter: w, h: h, limit: -1}
	h.mu.Lock()
	if h.drops > 0 && int64(len(data)) > h.dropAfter && r.Header.Get("Range") != "" {
		h.drops--
		cw.limit = h.dropAfter
	}
	h.mu.Unlock()
	http.ServeContent(cw, r, "", time.Time{}, bytes.NewReader(data))
	h.mu.Lock()
	switch {
	case cw.status == http.StatusPartialContent:
		h.rangeReqs++
	case r.Header.Get("If-Range") != "" && (cw.status == http.StatusOK || cw.status == 0):
		h.ifRangeFull++
	}
	h.mu.Unlock()
}

type countingWriter struct {
	http.ResponseWriter
	h      *fakeHub
	limit  int64 // drop the connection after this many bytes (-1: never)
	n      int64
	status int
}

func (c *countingWriter) WriteHeader(code int) {
	c.status = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.limit >= 0 && c.n+int64(len(b)) > c.limit {
		c.h.dropped.Add(1)
		k := c.limit - c.n
		c.ResponseWriter.Write(b[:k])
		c.h.served.Add(k)
		c.ResponseWriter.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // closes the connection mid-body
	}
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	total := c.h.served.Add(int64(n))
	c.h.mu.Lock()
	hook := c.h.onServe
	c.h.mu.Unlock()
	if hook != nil {
		hook(total)
	}
	return n, err
}

// fastOptions are download options for tests: small ranges, quick retries.
func fastOptions() Options {
	return Options{
		Connections:      3,
		ChunkBytes:       64 << 10,
		RetryDelay:       time.Millisecond,
		MaxRetryDelay:    5 * time.Millisecond,
		StallTimeout:     5 * time.Second,
		ProgressInterval: 5 * time.Millisecond,
	}
}

// checkFolder fails unless dir holds exactly the needed files with their content.
func checkFolder(t *testing.T, dir string, files map[string]*fakeFile) {
	t.Helper()
	for p, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if !Needed(p) {
			if err == nil {
				t.Errorf("%s was downloaded although it is not needed", p)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !bytes.Equal(got, f.data) {
			t.Errorf("%s: content differs (%d bytes, want %d)", p, len(got), len(f.data))
		}
	}
}

// stats returns the request counters under the lock.
func (h *fakeHub) stats() (rangeReqs, ifRangeFull int, requested map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	req := make(map[string]int, len(h.requested))
	for k, v := range h.requested {
		req[k] = v
	}
	return h.rangeReqs, h.ifRangeFull, req
}
