package download

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

const testRepo = "black-forest-labs/FLUX.2-klein-4B"

// progressLog records progress reports and checks that calls never overlap.
type progressLog struct {
	mu      sync.Mutex
	busy    bool
	overlap bool
	all     []Progress
}

func (l *progressLog) fn(p Progress) {
	l.mu.Lock()
	if l.busy {
		l.overlap = true
	}
	l.busy = true
	l.all = append(l.all, p)
	l.busy = false
	l.mu.Unlock()
}

func (l *progressLog) last() Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return Progress{}
	}
	return l.all[len(l.all)-1]
}

func TestDownloadGatedRepoWithTokenRangesAndCDNRedirect(t *testing.T) {
	files := testRepoFiles(1)
	h := newFakeHub(t, testRepo, files)
	h.gated, h.token = true, "hf_secret"
	dir := t.TempDir()
	var log progressLog
	o := fastOptions()
	o.Token = "hf_secret"
	o.Progress = log.fn
	res, err := Download(context.Background(), testRepo, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, files)
	total := neededTotal(files)
	if res.Bytes != total || res.Fetched != total || res.Reused != 0 || res.Files != 14 {
		t.Errorf("result %+v; want %d bytes fetched, 14 files", res, total)
	}
	if h.cdnAuthSeen.Load() {
		t.Error("the token was sent to the CDN host")
	}
	if !h.hubAuthSeen.Load() {
		t.Error("the token was not sent to the Hub")
	}
	// 300 kB + 140 kB + 400 kB + 90 kB in 64 KiB ranges: 5 + 3 + 7 + 2 range requests.
	rangeReqs, _, requested := h.stats()
	if rangeReqs < 17 {
		t.Errorf("%d ranged (206) responses, want at least 17", rangeReqs)
	}
	for p, n := range requested {
		if !Needed(p) {
			t.Errorf("skipped file %s was requested %d times", p, n)
		}
	}
	if got := h.served.Load(); got != total {
		t.Errorf("server sent %d bytes, want exactly %d (no byte twice)", got, total)
	}
	// Only the manifest remains in the state folder.
	entries, err := os.ReadDir(filepath.Join(dir, StateDir))
	if err != nil || len(entries) != 1 || entries[0].Name() != manifestName {
		t.Errorf("state folder after success: %v %v", entries, err)
	}
	last := log.last()
	if last.Phase != PhaseDone || last.Bytes != total || last.TotalBytes != total || last.FilesDone != 14 || last.Files != 14 {
		t.Errorf("last progress %+v", last)
	}
	if log.overlap {
		t.Error("progress callbacks overlapped")
	}
	var sawDownloading bool
	for _, p := range log.all {
		sawDownloading = sawDownloading || p.Phase == PhaseDownloading
		if p.Bytes > p.TotalBytes {
			t.Errorf("progress beyond total: %+v", p)
		}
	}
	if !sawDownloading {
		t.Error("no progress report in the downloading phase")
	}

	// A second run finds everything verified through the manifest: nothing is fetched.
	before := h.served.Load()
	res, err = Download(context.Background(), testRepo, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if h.served.Load() != before || res.Fetched != 0 || res.Reused != total {
		t.Errorf("second run fetched %d bytes (result %+v)", h.served.Load()-before, res)
	}
}

func TestDownloadGatedWithoutToken(t *testing.T) {
	files := testRepoFiles(2)
	h := newFakeHub(t, testRepo, files)
	h.gated, h.token = true, "hf_secret"
	dir := t.TempDir()
	_, err := Download(context.Background(), testRepo, dir, fastOptions())
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("err = %v, want ErrAuth", err)
	}
	for _, want := range []string{"gated", "token", "HF_TOKEN", "https://huggingface.co/settings/tokens", h.hub.URL + "/" + testRepo} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 401 || he.Code != "GatedRepo" {
		t.Errorf("HTTPError = %+v", he)
	}
	for p := range files {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s exists after a failed download", p)
		}
	}
	// 401 is not retried.
	_, _, requested := h.stats()
	for p, n := range requested {
		if n > 1 {
			t.Errorf("%s requested %d times after a 401", p, n)
		}
	}

	o := fastOptions()
	o.Token = "hf_wrong"
	_, err = Download(context.Background(), testRepo, dir, o)
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "rejected") {
		t.Errorf("wrong token: %v", err)
	}
	// The token from the environment works too.
	t.Setenv("HF_TOKEN", "hf_secret")
	if _, err := Download(context.Background(), testRepo, dir, fastOptions()); err != nil {
		t.Fatalf("with HF_TOKEN: %v", err)
	}
	checkFolder(t, dir, files)
}

func TestDownloadSurvivesDroppedConnections(t *testing.T) {
	files := testRepoFiles(3)
	h := newFakeHub(t, testRepo, files)
	h.dropAfter, h.drops = 10_000, 12 // the first 12 responses die after 10 kB
	dir := t.TempDir()
	var log progressLog
	o := fastOptions()
	o.Progress = log.fn
	if _, err := Download(context.Background(), testRepo, dir, o); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, files)
	total := neededTotal(files)
	// Resuming inside a range re-requests nothing already written.
	if got := h.served.Load(); got != total {
		t.Errorf("server sent %d bytes for %d needed", got, total)
	}
	retries := 0
	for _, p := range log.all {
		retries = max(retries, p.Retries)
	}
	if d := int(h.dropped.Load()); d < 8 || retries < d {
		t.Errorf("%d connections dropped, progress reported %d retries", d, retries)
	}
}

func TestDownloadRetriesServerErrorsButNot404(t *testing.T) {
	files := testRepoFiles(4)
	h := newFakeHub(t, testRepo, files)
	h.failFirst["transformer/diffusion_pytorch_model.safetensors"] = 3
	h.failFirst["vae/config.json"] = 2
	dir := t.TempDir()
	if _, err := Download(context.Background(), testRepo, dir, fastOptions()); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, files)

	h2 := newFakeHub(t, testRepo, testRepoFiles(5))
	h2.status["vae/diffusion_pytorch_model.safetensors"] = 404
	_, err := Download(context.Background(), testRepo, t.TempDir(), fastOptions())
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	// Two ranges of the 90 kB file may be in flight; none is retried.
	if _, _, req := h2.stats(); req["vae/diffusion_pytorch_model.safetensors"] > 2 {
		t.Errorf("404 retried: %d requests", req["vae/diffusion_pytorch_model.safetensors"])
	}

	h3 := newFakeHub(t, testRepo, testRepoFiles(6))
	h3.status["vae/config.json"] = 500
	o := fastOptions()
	o.MaxRetries = 3
	_, err = Download(context.Background(), testRepo, t.TempDir(), o)
	if err == nil || !strings.Contains(err.Error(), "giving up after 4 failed attempts") || !strings.Contains(err.Error(), "500") {
		t.Errorf("persistent 500: %v", err)
	}
}

func TestDownloadRejectsCorruptBytes(t *testing.T) {
	files := testRepoFiles(7)
	bad := "transformer/diffusion_pytorch_model.safetensors"
	files[bad].served = bytes.Clone(files[bad].data)
	files[bad].served[123_456] ^= 1
	h := newFakeHub(t, testRepo, files)
	dir := t.TempDir()
	_, err := Download(context.Background(), testRepo, dir, fastOptions())
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("err = %v, want a sha256 ErrChecksum", err)
	}
	if _, err := os.Stat(filepath.Join(dir, bad)); err == nil {
		t.Error("corrupt file placed under its final name")
	}
	if _, err := os.Stat(partPath(dir, bad)); err == nil {
		t.Error("corrupt part file kept")
	}
	_ = h

	// A small (git) file with wrong content: caught by its blob id.
	files = testRepoFiles(8)
	files["transformer/config.json"].served = []byte(`{"num_attention_heads": 32, "attention_head_dim": 128}`[:len(files["transformer/config.json"].data)])
	newFakeHub(t, testRepo, files)
	dir = t.TempDir()
	_, err = Download(context.Background(), testRepo, dir, fastOptions())
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "git blob id") {
		t.Fatalf("err = %v, want a blob id ErrChecksum", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "transformer/config.json")); err == nil {
		t.Error("corrupt config placed under its final name")
	}
}

func TestDownloadCatchesSizeLies(t *testing.T) {
	// The listing claims more bytes than the server has.
	files := testRepoFiles(9)
	big := "vae/diffusion_pytorch_model.safetensors"
	files[big].listedSize = 100_000
	newFakeHub(t, testRepo, files)
	dir := t.TempDir()
	_, err := Download(context.Background(), testRepo, dir, fastOptions())
	if !errors.Is(err, ErrRemoteChanged) || !strings.Contains(err.Error(), "listing says 100000") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, big)); err == nil {
		t.Error("file with the wrong size placed under its final name")
	}

	// A small file whose body is shorter than listed.
	files = testRepoFiles(10)
	files["tokenizer/vocab.json"].listedSize = 50
	newFakeHub(t, testRepo, files)
	dir = t.TempDir()
	_, err = Download(context.Background(), testRepo, dir, fastOptions())
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "listing says 50") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tokenizer/vocab.json")); err == nil {
		t.Error("short file placed under its final name")
	}
}

func TestDownloadResumesAfterCancel(t *testing.T) {
	files := testRepoFiles(11)
	h := newFakeHub(t, testRepo, files)
	total := neededTotal(files)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// With one connection the order is fixed: small files, the text encoder's shards, then
	// the transformer. Cancelling 200 kB into the transformer (of 400 kB) leaves verified
	// files and a part file with completed ranges, whatever the timing. (Cancelling at half
	// the total with three connections sometimes fell between two files and left no part
	// file.)
	var before int64
	for q, f := range files {
		if Needed(q) && (!f.lfs || strings.HasPrefix(q, "text_encoder/")) {
			before += int64(len(f.data))
		}
	}
	h.onServe = func(n int64) {
		if n > before+200_000 {
			cancel()
		}
	}
	dir := t.TempDir()
	o := fastOptions()
	o.Connections = 1
	o.ChunkBytes = 32 << 10
	_, err := Download(ctx, testRepo, dir, o)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("first run: %v", err)
	}
	first := h.served.Load()
	// What the first run left: verified files (in the manifest) and completed ranges.
	var kept int64
	m, err := readManifest(dir)
	if err != nil {
		t.Fatalf("manifest after cancel: %v", err)
	}
	for _, f := range m.Files {
		kept += f.Size
	}
	partials := 0
	for p, f := range files {
		if !f.lfs || !Needed(p) {
			continue
		}
		st, err := readPartState(partStatePath(dir, p))
		if err != nil {
			continue
		}
		partials++
		kept += st.doneBytes()
	}
	if partials == 0 || kept < total/4 {
		t.Fatalf("after cancel: %d partial files, %d of %d bytes kept", partials, kept, total)
	}
	for p := range files {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			if _, ok := m.find(p); !ok {
				t.Errorf("%s is under its final name but not verified", p)
			}
		}
	}

	h.mu.Lock()
	h.onServe = nil
	h.mu.Unlock()
	res, err := Download(context.Background(), testRepo, dir, o) // a new downloader, same dir
	if err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, files)
	second := h.served.Load() - first
	if second > total-kept {
		t.Errorf("second run fetched %d bytes; only %d were missing", second, total-kept)
	}
	if res.Reused != kept || res.Fetched != second {
		t.Errorf("result reused %d fetched %d; want %d and %d", res.Reused, res.Fetched, kept, second)
	}
	t.Logf("total %d: first run sent %d, kept %d, second run sent %d", total, first, kept, second)
}

func TestDownloadRestartsAFileThatChanged(t *testing.T) {
	files := testRepoFiles(12)
	h := newFakeHub(t, testRepo, files)
	p := "transformer/diffusion_pytorch_model.safetensors"
	newData := bytes.Repeat([]byte("new version "), 40_000)[:len(files[p].data)] // same size
	// With one connection the order is fixed: small files, then the LFS files by path.
	var before int64
	for q, f := range files {
		if Needed(q) && (!f.lfs || strings.HasPrefix(q, "text_encoder/")) {
			before += int64(len(f.data))
		}
	}
	var once sync.Once
	// After 200 kB of the transformer, the file is re-uploaded: new content and ETag. The
	// next range request's If-Range fails and the server sends the whole new file (200).
	h.onServe = func(n int64) {
		if n < before+200_000 {
			return
		}
		once.Do(func() {
			h.mu.Lock()
			files[p] = &fakeFile{data: newData, lfs: true}
			h.etagSalt = "v2"
			h.mu.Unlock()
		})
	}
	dir := t.TempDir()
	o := fastOptions()
	o.Connections = 1
	var log progressLog
	o.Progress = log.fn
	if _, err := Download(context.Background(), testRepo, dir, o); err != nil {
		t.Fatal(err)
	}
	for _, pr := range log.all {
		if pr.Bytes > pr.TotalBytes || pr.FilesDone > pr.Files {
			t.Fatalf("progress after the restart overcounts: %+v", pr)
		}
	}
	got, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil || !bytes.Equal(got, newData) {
		t.Fatalf("%s: %d bytes, want the new version (%d bytes): %v", p, len(got), len(newData), err)
	}
	if _, n, _ := h.stats(); n == 0 {
		t.Error("the change was not detected through If-Range")
	}
}

func TestDownloadRestartsAfterTheRemoteChangedBetweenRuns(t *testing.T) {
	files := testRepoFiles(13)
	h := newFakeHub(t, testRepo, files)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	total := neededTotal(files)
	h.onServe = func(n int64) {
		if n > total*3/4 {
			cancel()
		}
	}
	dir := t.TempDir()
	o := fastOptions()
	o.Connections = 1
	if _, err := Download(ctx, testRepo, dir, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v", err)
	}
	// Whatever is partial gets a new version; the stale state must be discarded.
	h.mu.Lock()
	h.onServe = nil
	changed := ""
	for p, f := range files {
		if _, err := os.Stat(partStatePath(dir, p)); err == nil && f.lfs {
			files[p] = &fakeFile{data: bytes.Repeat([]byte{'z'}, len(f.data)), lfs: true}
			changed = p
		}
	}
	h.etagSalt = "v2"
	h.mu.Unlock()
	if changed == "" {
		t.Fatal("no partial file after the first run")
	}
	if _, err := Download(context.Background(), testRepo, dir, o); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, files)
}

// fullDisk is a part file whose writes fail with ENOSPC after a budget shared by all files.
type fullDisk struct {
	partFile
	budget *int64
	mu     *sync.Mutex
}

func (f fullDisk) WriteAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if int64(len(b)) > *f.budget {
		return 0, &os.PathError{Op: "write", Path: "part", Err: syscall.ENOSPC}
	}
	*f.budget -= int64(len(b))
	return f.partFile.WriteAt(b, off)
}

func TestDownloadStopsCleanlyOnFullDisk(t *testing.T) {
	files := testRepoFiles(14)
	h := newFakeHub(t, testRepo, files)
	dir := t.TempDir()
	budget, mu := int64(500_000), &sync.Mutex{}
	o := fastOptions()
	o.openPart = func(path string) (partFile, error) {
		f, err := openOSPart(path)
		if err != nil {
			return nil, err
		}
		return fullDisk{partFile: f, budget: &budget, mu: mu}, nil
	}
	_, err := Download(context.Background(), testRepo, dir, o)
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "free some space") {
		t.Fatalf("err = %v, want ErrDiskFull", err)
	}
	// Nothing half-written under a final name; the partial state is kept.
	m, _ := readManifest(dir)
	var kept int64
	for p, f := range files {
		if !Needed(p) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			if _, ok := m.find(p); !ok {
				t.Errorf("%s under its final name but not verified", p)
			}
			kept += int64(len(f.data))
		}
		if st, err := readPartState(partStatePath(dir, p)); err == nil {
			kept += st.doneBytes()
		}
	}
	if kept == 0 {
		t.Fatal("no progress kept after the full disk")
	}
	first := h.served.Load()
	// Space freed: the same command completes, fetching only what is missing.
	if _, err := Download(context.Background(), testRepo, dir, fastOptions()); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, files)
	if second := h.served.Load() - first; second > neededTotal(files)-kept {
		t.Errorf("after the full disk, %d bytes fetched again; %d were kept", second, kept)
	}
}

func TestDownloadChecksExistingFilesWithoutManifest(t *testing.T) {
	files := testRepoFiles(15)
	h := newFakeHub(t, testRepo, files)
	dir := t.TempDir()
	if _, err := Download(context.Background(), testRepo, dir, fastOptions()); err != nil {
		t.Fatal(err)
	}
	// Another tool's folder: no manifest, one file silently corrupted (same size).
	if err := os.RemoveAll(filepath.Join(dir, StateDir)); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "text_encoder", "model-00002-of-00002.safetensors")
	raw, _ := os.ReadFile(bad)
	raw[7] ^= 0x40
	os.WriteFile(bad, raw, 0o644)
	before := h.served.Load()
	var log progressLog
	o := fastOptions()
	o.Progress = log.fn
	res, err := Download(context.Background(), testRepo, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, files)
	want := int64(len(files["text_encoder/model-00002-of-00002.safetensors"].data))
	if got := h.served.Load() - before; got != want || res.Fetched != want {
		t.Errorf("fetched %d bytes (result %d), want only the corrupt file's %d", got, res.Fetched, want)
	}
	checking := false
	for _, p := range log.all {
		checking = checking || (p.Phase == PhaseChecking && p.TotalBytes > 0)
	}
	if !checking {
		t.Error("no progress report in the checking phase")
	}
}

func TestDownloadCancelledBeforeStart(t *testing.T) {
	newFakeHub(t, testRepo, testRepoFiles(16))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Download(ctx, testRepo, t.TempDir(), fastOptions()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
