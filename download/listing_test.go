package download

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNeeded(t *testing.T) {
	for p, want := range map[string]bool{
		"model_index.json":                                true,
		"scheduler/scheduler_config.json":                 true,
		"text_encoder/config.json":                        true,
		"text_encoder/model.safetensors.index.json":       true,
		"text_encoder/model-00001-of-00002.safetensors":   true,
		"text_encoder/generation_config.json":             false,
		"tokenizer/tokenizer.json":                        true,
		"tokenizer/tokenizer_config.json":                 true,
		"tokenizer/vocab.json":                            true,
		"tokenizer/merges.txt":                            true,
		"tokenizer/special_tokens_map.json":               true,
		"tokenizer/added_tokens.json":                     true,
		"tokenizer/chat_template.jinja":                   true,
		"tokenizer/model.safetensors":                     false,
		"tokenizer/sub/x.json":                            false,
		"transformer/config.json":                         true,
		"transformer/diffusion_pytorch_model.safetensors": true,
		"transformer/diffusion_pytorch_model.bin":         false,
		"vae/config.json":                                 true,
		"vae/diffusion_pytorch_model.safetensors":         true,
		"vae/extra/diffusion_pytorch_model.safetensors":   false,
		"README.md":                           false,
		".gitattributes":                      false,
		"flux-2-klein-4b.safetensors":         false,
		"scheduler/other.json":                false,
		"transformer/../../etc/x.safetensors": false,
		"assets/teaser.png":                   false,
	} {
		if got := Needed(p); got != want {
			t.Errorf("Needed(%q) = %v, want %v", p, got, want)
		}
	}
}

const minimalListing = `{"id": "o/m", "sha": "%s", "gated": %s, "siblings": [
 {"rfilename": "model_index.json", "size": 10, "blobId": "0123456789abcdef0123456789abcdef01234567"},
 {"rfilename": "scheduler/scheduler_config.json", "size": 1},
 {"rfilename": "text_encoder/config.json", "size": 1},
 {"rfilename": "text_encoder/model.safetensors", "size": 134, "lfs": {"sha256": "%s", "size": 5000000000, "pointerSize": 134}},
 {"rfilename": "tokenizer/tokenizer.json", "size": 1},
 {"rfilename": "transformer/config.json", "size": 1},
 {"rfilename": "transformer/diffusion_pytorch_model.safetensors", "size": 1, "lfs": {"sha256": "%s", "size": 7}},
 {"rfilename": "vae/config.json", "size": 1},
 {"rfilename": "vae/diffusion_pytorch_model.safetensors", "size": 1, "lfs": {"sha256": "%s", "size": 7}},
 {"rfilename": "README.md", "size": 1}]}`

func listingJSON(gated, sha256 string) []byte {
	ok := strings.Repeat("a", 64)
	return fmt.Appendf(nil, minimalListing, "c0ffee", gated, sha256, ok, ok)
}

func TestParseListing(t *testing.T) {
	l, err := parseListing("o/m", listingJSON("false", strings.Repeat("B", 64)))
	if err != nil {
		t.Fatal(err)
	}
	if l.Gated || l.Commit != "c0ffee" || len(l.Files) != 9 || l.Skipped != 1 {
		t.Fatalf("listing %+v", l)
	}
	te, _ := l.File("text_encoder/model.safetensors")
	if te.Size != 5_000_000_000 || te.SHA256 != strings.Repeat("b", 64) || !te.LFS() {
		t.Errorf("LFS entry %+v: want the LFS size and the lower-cased sha256", te)
	}
	mi, _ := l.File("model_index.json")
	if mi.Size != 10 || mi.BlobID == "" || mi.LFS() {
		t.Errorf("git entry %+v", mi)
	}
	for _, g := range []string{`"manual"`, `"auto"`, `true`} {
		if l, err := parseListing("o/m", listingJSON(g, strings.Repeat("b", 64))); err != nil || !l.Gated {
			t.Errorf("gated %s: %v %v", g, l, err)
		}
	}
	for name, raw := range map[string]string{
		"bad sha256":  string(listingJSON("false", "xyz")),
		"not JSON":    `{"siblings": [`,
		"not a klein": `{"siblings": [{"rfilename": "model_index.json", "size": 3}]}`,
		"no size":     strings.Replace(string(listingJSON("false", strings.Repeat("b", 64))), `"size": 1}`, `"x": 1}`, 1),
	} {
		if _, err := parseListing("o/m", []byte(raw)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestListUsesRevisionAndReportsMissingRepo(t *testing.T) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if r.URL.Path == "/api/models/o/m/revision/v1.0" {
			w.Write(listingJSON("false", strings.Repeat("b", 64)))
			return
		}
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.NotFound(w, r)
	}))
	defer srv.Close()
	l, err := List(context.Background(), "o/m", Options{Endpoint: srv.URL + "/", Revision: "v1.0"})
	if err != nil || len(l.Files) != 9 {
		t.Fatalf("List: %v %v (paths %v)", l, err, paths)
	}
	_, err = List(context.Background(), "o/missing", Options{Endpoint: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "repository o/missing not found") {
		t.Errorf("missing repo: %v", err)
	}
	if _, err := List(context.Background(), "../etc", Options{Endpoint: srv.URL}); err == nil {
		t.Error("malformed repo name accepted")
	}
	if _, err := List(context.Background(), "o/m", Options{Endpoint: "ftp://x"}); err == nil {
		t.Error("non-http endpoint accepted")
	}
}

func TestFileURLEscapes(t *testing.T) {
	c, err := newClient(Options{Endpoint: "https://hf-mirror.example/prefix", Revision: "refs/pr/1"}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	got := c.fileURL("o/m", "tokenizer/a b.json")
	want := "https://hf-mirror.example/prefix/o/m/resolve/refs%2Fpr%2F1/tokenizer/a%20b.json"
	if got != want {
		t.Errorf("fileURL = %s, want %s", got, want)
	}
}

func TestTokenKeptOnlyForTheHubHost(t *testing.T) {
	// Same host: a renamed repository's relative redirect keeps the token.
	var authAfterRedirect string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old/m/resolve/main/x" {
			http.Redirect(w, r, "/new/m/resolve/main/x", http.StatusMovedPermanently)
			return
		}
		authAfterRedirect = r.Header.Get("Authorization")
	}))
	defer srv.Close()
	o := Options{Endpoint: srv.URL, Token: "hf_t"}.withDefaults()
	c, err := newClient(o)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, c.fileURL("old/m", "x"), nil)
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if authAfterRedirect != "Bearer hf_t" {
		t.Errorf("same-host redirect: Authorization %q", authAfterRedirect)
	}
	// Another host (the CDN of the download tests) never gets it: see
	// TestDownloadGatedRepoWithTokenRangesAndCDNRedirect.
}

func TestDefaultToken(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	t.Setenv("HF_TOKEN_PATH", "")
	t.Setenv("HF_HOME", home)
	if got := DefaultToken(); got != "" {
		t.Errorf("no token anywhere: %q", got)
	}
	os.WriteFile(filepath.Join(home, "token"), []byte("hf_file\n"), 0o600)
	if got := DefaultToken(); got != "hf_file" {
		t.Errorf("token file: %q", got)
	}
	t.Setenv("HF_TOKEN", " hf_env ")
	if got := DefaultToken(); got != "hf_env" {
		t.Errorf("HF_TOKEN: %q", got)
	}
}

func TestVariants(t *testing.T) {
	v, err := VariantByID("KLEIN-9B")
	if err != nil || v.Repo != "black-forest-labs/FLUX.2-klein-9B" || !v.Gated || !v.Distilled {
		t.Errorf("klein-9b: %+v %v", v, err)
	}
	if Variants()[0].ID != "klein-4b" || Variants()[0].Gated {
		t.Error("klein-4b must be the first, ungated variant")
	}
	if _, err := VariantByID("klein-2b"); err == nil || !strings.Contains(err.Error(), "klein-base-4b") {
		t.Errorf("unknown variant: %v", err)
	}
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	c := &client{opts: Options{RetryDelay: 100 * time.Millisecond, MaxRetryDelay: time.Second}}
	for n, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 10: time.Second} {
		for range 20 {
			if d := c.backoff(n); d < want*3/4 || d > want*5/4 {
				t.Errorf("backoff(%d) = %v, want %v ± 25%%", n, d, want)
			}
		}
	}
	if parseRetryAfter("7") != 7*time.Second || parseRetryAfter("soon") != 0 {
		t.Error("Retry-After parsing")
	}
}

func TestPartStateRanges(t *testing.T) {
	s := newPartState(RemoteFile{Path: "x", Size: 100})
	s.add(20, 30)
	s.add(0, 10)
	s.add(10, 20)
	s.add(50, 60)
	if len(s.Done) != 2 || s.Done[0] != [2]int64{0, 30} || s.doneBytes() != 40 || !s.valid() {
		t.Fatalf("merged %v", s.Done)
	}
	if g := s.gaps(); len(g) != 2 || g[0] != [2]int64{30, 50} || g[1] != [2]int64{60, 100} {
		t.Fatalf("gaps %v", g)
	}
	var got [][2]int64
	var n int64
	for _, g := range s.gaps() {
		j := job{kind: jobRange, lo: g[0], hi: g[1]}
		n += j.count(15)
		for r := range j.requests(15) {
			got = append(got, [2]int64{r.lo, r.hi})
		}
	}
	want := [][2]int64{{30, 45}, {45, 50}, {60, 75}, {75, 90}, {90, 100}}
	if n != int64(len(want)) {
		t.Errorf("count %d, want %d", n, len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("missing %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("missing %v, want %v", got, want)
		}
	}
	s.Done = append(s.Done, [2]int64{95, 120})
	if s.valid() {
		t.Error("range past the end accepted")
	}
	if !s.matches(RemoteFile{Path: "x", Size: 100}) || s.matches(RemoteFile{Path: "x", Size: 100, SHA256: "ab"}) {
		t.Error("matches")
	}
}

func TestParseContentRange(t *testing.T) {
	for v, want := range map[string][3]int64{
		"bytes 0-99/1000":   {0, 99, 1000},
		"bytes 100-199/*":   {100, 199, -1},
		" bytes 5-5/6":      {5, 5, 6},
		"bytes 10-5/100":    {-1},
		"bytes 0-99/50":     {-1},
		"items 0-1/2":       {-1},
		"bytes -5/100":      {-1},
		"bytes 0-99":        {-1},
		"bytes 0-x/100":     {-1},
		"bytes */1000":      {-1},
		"bytes 1-2/3/4":     {-1},
		"bytes 00-99/01000": {0, 99, 1000},
	} {
		s, e, tot, ok := parseContentRange(v)
		if want[0] == -1 {
			if ok {
				t.Errorf("%q accepted", v)
			}
			continue
		}
		if !ok || s != want[0] || e != want[1] || tot != want[2] {
			t.Errorf("%q = %d %d %d %v", v, s, e, tot, ok)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{999: "999 B", 1500: "2 kB", 168_000_000: "168 MB", 7_751_000_000: "7.75 GB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
