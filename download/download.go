package download

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"kleinbild/internal/atomicfile"
)

// Result summarises a finished download.
type Result struct {
	Dir, Repo, Commit string
	Files             int
	// Bytes is the size of all files; Fetched what this run received over the network;
	// Reused what was already on disk (complete files and partial data) when it started.
	Bytes, Fetched, Reused int64
	Elapsed                time.Duration
}

// maxRestarts bounds how often Download starts over after a file changed on the server.
const maxRestarts = 2

// stateSaveInterval bounds how often a file's partial state is synced and saved.
const stateSaveInterval = time.Second

// Download fetches the needed files of repo (see Needed) into dir, which becomes a model
// folder engine.Open accepts. It resumes whatever an earlier call left in dir, skips files
// already present and verified, and returns once every file is verified and in place.
//
// Cancelling ctx stops the download promptly and keeps the partial state: calling Download
// again with the same dir continues where it stopped. One Download runs on a dir at a time:
// another one (in any process) waits for it, saying so in its progress Note. Errors wrap ErrAuth, ErrForbidden, ErrNotFound, ErrDiskFull, ErrChecksum or
// ErrRemoteChanged where they apply, or ctx's error.
func Download(ctx context.Context, repo, dir string, opts Options) (*Result, error) {
	o := opts.withDefaults()
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	return fetch(ctx, c, o, repo, diffusers, dir)
}

// fetch downloads the files sel keeps of repo into dir (see Download), reporting to
// o.Progress.
func fetch(ctx context.Context, c *client, o Options, repo string, sel selection, dir string) (*Result, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("model folder: %w", err)
	}
	rep := newReporter(o.Progress, o.ProgressInterval, repo)
	c.onRetry = rep.notes.add
	defer rep.close()
	unlock, err := lockFolder(ctx, dir, func() {
		rep.notes.say(fmt.Sprintf("another download is writing to %s: waiting for it to finish", dir))
	})
	if err != nil {
		return nil, err
	}
	defer unlock()
	for restarts := 0; ; restarts++ {
		rep.set(func(p *Progress) { p.Phase = PhaseListing })
		l, err := c.listSel(ctx, repo, sel)
		if err != nil {
			return nil, err
		}
		d := &download{c: c, o: o, dir: dir, l: l, rep: rep}
		res, err := d.run(ctx)
		if errors.Is(err, ErrRemoteChanged) && restarts < maxRestarts && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return nil, err
		}
		res.Elapsed = time.Since(rep.start)
		rep.set(func(p *Progress) { p.Phase = PhaseDone; p.File = "" })
		return res, nil
	}
}

// download is one pass over a listing.
type download struct {
	c   *client
	o   Options
	dir string
	l   *Listing
	rep *reporter

	manMu sync.Mutex
	man   *manifest
}

// task is one file to fetch.
type task struct {
	f                    RemoteFile
	final, part, stateAt string
	small                bool // fetched in one request, kept in memory, written atomically

	mu       sync.Mutex
	st       partState
	pf       partFile
	pending  int64 // range requests not yet complete
	lastSave time.Time
	dirty    bool
	changed  bool // the server's copy changed: discard the partial data after the run
}

type jobKind int

const (
	jobRange jobKind = iota
	jobSmall
	jobFinalize
)

// job is one unit of work; a jobRange spans [lo, hi), which the feeder splits into
// requests of at most ChunkBytes, so that planning takes memory per hole, not per chunk.
type job struct {
	t      *task
	kind   jobKind
	lo, hi int64
}

// requests yields j's requests: j itself, or the chunks of a range.
func (j job) requests(chunk int64) iter.Seq[job] {
	return func(yield func(job) bool) {
		if j.kind != jobRange {
			yield(j)
			return
		}
		for lo := j.lo; lo < j.hi; {
			r := j
			r.lo, r.hi = lo, chunkEnd(lo, j.hi, chunk)
			if !yield(r) {
				return
			}
			lo = r.hi
		}
	}
}

// count is the number of requests of j.
func (j job) count(chunk int64) int64 {
	if j.kind != jobRange {
		return 1
	}
	return chunkCount(j.lo, j.hi, chunk)
}

func (d *download) run(ctx context.Context) (*Result, error) {
	res := &Result{Dir: d.dir, Repo: d.l.Repo, Commit: d.l.Commit, Files: len(d.l.Files), Bytes: d.l.TotalBytes()}
	man, err := readManifest(d.dir)
	if err != nil {
		man = &manifest{}
	}
	if man.Repo != d.l.Repo {
		man = &manifest{}
	}
	man.Version, man.Repo, man.Commit, man.Endpoint = stateVersion, d.l.Repo, d.l.Commit, d.o.Endpoint
	d.man = man
	// A pass after a restart counts from scratch (the network total keeps growing).
	d.rep.done.Store(0)
	d.rep.files.Store(0)

	tasks, jobs, reused, err := d.prepare(ctx)
	defer func() {
		for _, t := range tasks {
			d.closeTask(t)
		}
	}()
	if err != nil {
		return nil, err
	}
	res.Reused = reused
	d.rep.set(func(p *Progress) { p.Phase = PhaseDownloading })

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		var p *permanentError
		if errors.As(err, &p) {
			err = p.err
		}
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		cancel(err)
	}
	ch := make(chan job)
	var requests int64
	for _, j := range jobs {
		requests += j.count(d.o.ChunkBytes)
	}
	go func() {
		defer close(ch)
		for _, j := range jobs {
			for r := range j.requests(d.o.ChunkBytes) {
				select {
				case ch <- r:
				case <-runCtx.Done():
					return
				}
			}
		}
	}()
	for range min(int64(d.o.Connections), max(requests, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				if runCtx.Err() != nil {
					continue // drain
				}
				if err := d.do(runCtx, j); err != nil {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()

	// Keep what was received (or discard files that changed on the server).
	var errs []error
	for _, t := range tasks {
		if err := d.closeTask(t); err != nil {
			errs = append(errs, err)
		}
	}
	if ctx.Err() != nil {
		firstErr = fmt.Errorf("download of %s cancelled (run it again to resume): %w", d.l.Repo, context.Cause(ctx))
	}
	if firstErr != nil {
		return nil, errors.Join(append([]error{firstErr}, errs...)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	d.cleanStateDir()
	res.Fetched = d.rep.fetched.Load()
	return res, nil
}

// prepare decides, per file, whether it is done, checks that the disk can hold the rest and
// builds the jobs of the others: small files first, then the missing ranges of the large
// files in listing order. Part files are created only once the space is known to suffice.
func (d *download) prepare(ctx context.Context) (tasks []*task, jobs []job, reused int64, err error) {
	var toCheck []*task
	for _, f := range d.l.Files {
		t := &task{
			f:       f,
			final:   filepath.Join(d.dir, filepath.FromSlash(f.Path)),
			part:    partPath(d.dir, f.Path),
			stateAt: partStatePath(d.dir, f.Path),
			small:   f.SHA256 == "" && f.Size <= d.o.ChunkBytes,
		}
		for _, rel := range []string{f.Path, StateDir + "/" + f.Path} {
			if err := checkContained(d.dir, rel); err != nil {
				return nil, nil, reused, err
			}
		}
		if d.man.verified(f, t.final) {
			d.rep.done.Add(f.Size)
			d.rep.files.Add(1)
			reused += f.Size
			continue
		}
		if st, err := os.Stat(t.final); err == nil && st.Mode().IsRegular() && st.Size() == f.Size {
			toCheck = append(toCheck, t)
			continue
		}
		tasks = append(tasks, t)
	}
	d.rep.set(func(p *Progress) { p.Files = len(d.l.Files); p.TotalBytes = d.l.TotalBytes() })

	// Files already in place without a manifest record: hash them once.
	if len(toCheck) > 0 {
		var total int64
		for _, t := range toCheck {
			total += t.f.Size
		}
		d.rep.set(func(p *Progress) { p.Phase = PhaseChecking; p.Bytes = 0; p.TotalBytes = total })
		var base int64
		for _, t := range toCheck {
			d.rep.setFile(t.f.Path)
			err := checkFile(ctx, t.final, t.f, func(n int64) {
				d.rep.mu.Lock()
				d.rep.p.Bytes = base + n
				d.rep.mu.Unlock()
			})
			base += t.f.Size
			switch {
			case err == nil:
				d.rep.done.Add(t.f.Size)
				d.rep.files.Add(1)
				reused += t.f.Size
				if err := d.recordVerified(t.f, t.final); err != nil {
					return tasks, nil, reused, err
				}
			case errors.Is(err, ErrChecksum):
				tasks = append(tasks, t) // download again; the bad file is replaced at the end
			default:
				return tasks, nil, reused, err
			}
		}
		d.rep.set(func(p *Progress) { p.TotalBytes = d.l.TotalBytes() })
	}

	for _, t := range tasks {
		if err := checkSize(t.f.Size); err != nil { // parseListing checked it already
			return tasks, nil, reused, fmt.Errorf("%s: %w", t.f.Path, err)
		}
		if !t.small {
			d.loadPart(t)
		}
	}
	if err := d.checkSpace(tasks); err != nil {
		return tasks, nil, reused, err
	}
	var small, large []job
	for _, t := range tasks {
		if t.small {
			small = append(small, job{t: t, kind: jobSmall})
			continue
		}
		if err := d.openPart(t); err != nil {
			return tasks, nil, reused, err
		}
		reused += t.st.doneBytes()
		d.rep.done.Add(t.st.doneBytes())
		gaps := t.st.gaps()
		if len(gaps) == 0 {
			large = append(large, job{t: t, kind: jobFinalize})
		}
		for _, g := range gaps {
			t.pending += chunkCount(g[0], g[1], d.o.ChunkBytes)
			large = append(large, job{t: t, kind: jobRange, lo: g[0], hi: g[1]})
		}
	}
	return tasks, append(small, large...), reused, nil
}

func (d *download) do(ctx context.Context, j job) error {
	d.rep.setFile(j.t.f.Path)
	switch j.kind {
	case jobSmall:
		return d.fetchSmall(ctx, j.t)
	case jobFinalize:
		return d.finalize(ctx, j.t)
	}
	off := j.lo
	err := d.c.retry(ctx, j.t.f.Path, func(ctx context.Context) (int64, error) {
		n, err := d.getRange(ctx, j.t, off, j.hi)
		off += n
		return n, err
	})
	if err != nil {
		if off > j.lo {
			// Keep the part of the range that arrived: a resume continues from off.
			j.t.mu.Lock()
			j.t.st.add(j.lo, off)
			j.t.dirty = true
			j.t.mu.Unlock()
		}
		return err
	}
	return d.rangeDone(ctx, j.t, j.lo, j.hi)
}

// getRange requests [off, hi) of t's file and writes what arrives into the part file. It
// returns the bytes written, also when it fails part-way.
func (d *download) getRange(ctx context.Context, t *task, off, hi int64) (int64, error) {
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, d.c.fileURL(d.l.Repo, t.f.Path), nil)
	if err != nil {
		return 0, permanent(err)
	}
	d.c.authorize(req)
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, hi-1))
	req.Header.Set("Accept-Encoding", "identity")
	t.mu.Lock()
	etag := t.st.ETag
	t.mu.Unlock()
	if etag != "" && !strings.HasPrefix(etag, "W/") {
		// If-Range: if the file changed, the server sends all of it (200) instead of mixing
		// bytes of two versions.
		req.Header.Set("If-Range", etag)
	}
	resp, err := d.c.http.Do(req)
	if err != nil {
		return 0, requestError(reqCtx, err)
	}
	defer resp.Body.Close()
	skip, askedHi := int64(0), hi
	switch resp.StatusCode {
	case http.StatusPartialContent:
		start, end, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok {
			return 0, permanent(fmt.Errorf("%s: malformed Content-Range %q from %s", t.f.Path, resp.Header.Get("Content-Range"), resp.Request.URL.Host))
		}
		if total >= 0 && total != t.f.Size {
			return 0, d.changed(t, fmt.Sprintf("the server has %d bytes, the listing says %d", total, t.f.Size))
		}
		if start != off || end < start {
			return 0, permanent(fmt.Errorf("%s: asked for bytes %d-%d, the server sent %d-%d", t.f.Path, off, hi-1, start, end))
		}
		hi = min(hi, end+1)
	case http.StatusOK:
		// The server ignored Range, or If-Range failed because the file changed.
		if resp.ContentLength >= 0 && resp.ContentLength != t.f.Size {
			return 0, d.changed(t, fmt.Sprintf("the server sends %d bytes, the listing says %d", resp.ContentLength, t.f.Size))
		}
		skip = off
	case http.StatusRequestedRangeNotSatisfiable:
		return 0, d.changed(t, "the server has fewer bytes than the listing says")
	default:
		gated := ""
		if d.l.Gated {
			gated = "gated"
		}
		return 0, d.c.statusError(resp, d.l.Repo, gated)
	}
	tag := resp.Header.Get("ETag")
	if len(tag) > maxETagBytes || !printableASCII(tag) {
		tag = "" // unusable as a validator (and not to be saved or echoed)
	}
	if tag != "" {
		t.mu.Lock()
		old := t.st.ETag
		if old == "" {
			t.st.ETag, t.dirty = tag, true
		}
		t.mu.Unlock()
		if old != "" && old != tag {
			return 0, d.changed(t, fmt.Sprintf("its ETag changed from %q to %q", old, tag))
		}
	} else if resp.StatusCode == http.StatusOK && etag != "" {
		return 0, d.changed(t, "the server ignored If-Range")
	}

	sr := newStallReader(resp.Body, d.o.StallTimeout, cancel)
	defer sr.stop()
	if skip > 0 {
		if _, err := io.CopyN(io.Discard, sr, skip); err != nil {
			return 0, requestError(reqCtx, err)
		}
	}
	buf := make([]byte, 256<<10)
	var n int64
	want := hi - off
	for n < want {
		k, rerr := sr.Read(buf[:min(int64(len(buf)), want-n)])
		if k > 0 {
			if _, werr := t.pf.WriteAt(buf[:k], off+n); werr != nil {
				return n, permanent(d.writeError(t, werr))
			}
			n += int64(k)
			d.rep.received(int64(k))
		}
		if rerr == io.EOF {
			if n < want {
				return n, fmt.Errorf("%s: connection closed after %d of %d bytes: %w", t.f.Path, n, want, io.ErrUnexpectedEOF)
			}
			break
		}
		if rerr != nil {
			return n, fmt.Errorf("%s: %w", t.f.Path, requestError(reqCtx, rerr))
		}
	}
	if hi < askedHi { // a shorter range than asked: the next attempt requests the rest
		return n, fmt.Errorf("%s: the server sent bytes %d-%d of %d-%d", t.f.Path, off, hi-1, off, askedHi-1)
	}
	return n, nil
}

// changed marks t for a restart and returns the (permanent) error that ends this pass.
func (d *download) changed(t *task, why string) error {
	t.mu.Lock()
	t.changed = true
	t.mu.Unlock()
	return permanent(fmt.Errorf("%s changed on the server during the download (%s): %w", t.f.Path, why, ErrRemoteChanged))
}

// fetchSmall downloads a small file in one request and writes it atomically after checking
// its size and git blob id.
func (d *download) fetchSmall(ctx context.Context, t *task) error {
	var data []byte
	err := d.c.retry(ctx, t.f.Path, func(ctx context.Context) (int64, error) {
		reqCtx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, d.c.fileURL(d.l.Repo, t.f.Path), nil)
		if err != nil {
			return 0, permanent(err)
		}
		d.c.authorize(req)
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := d.c.http.Do(req)
		if err != nil {
			return 0, requestError(reqCtx, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			gated := ""
			if d.l.Gated {
				gated = "gated"
			}
			return 0, d.c.statusError(resp, d.l.Repo, gated)
		}
		sr := newStallReader(resp.Body, d.o.StallTimeout, cancel)
		defer sr.stop()
		b, err := io.ReadAll(io.LimitReader(sr, t.f.Size+1))
		if err != nil {
			return 0, fmt.Errorf("%s: %w", t.f.Path, requestError(reqCtx, err))
		}
		data = b
		return 0, nil
	})
	if err != nil {
		return err
	}
	if err := verifyBytes(t.f, data); err != nil {
		return permanent(fmt.Errorf("%w; nothing was written: run the download again", err))
	}
	if err := checkContained(d.dir, t.f.Path); err != nil {
		return permanent(err)
	}
	if err := os.MkdirAll(filepath.Dir(t.final), 0o755); err != nil {
		return permanent(d.writeError(t, err))
	}
	if err := atomicfile.WriteAtomic(t.final, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return permanent(d.writeError(t, err))
	}
	d.rep.received(int64(len(data)))
	d.rep.files.Add(1)
	return permanent(d.recordVerified(t.f, t.final))
}

// parseContentRange parses "bytes start-end/total" (total may be "*", returned as -1).
func parseContentRange(v string) (start, end, total int64, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(v), "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	a, b, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, 0, false
	}
	var err error
	if start, err = strconv.ParseInt(a, 10, 64); err != nil || start < 0 {
		return 0, 0, 0, false
	}
	if end, err = strconv.ParseInt(b, 10, 64); err != nil || end < start {
		return 0, 0, 0, false
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil || total <= end {
			return 0, 0, 0, false
		}
	}
	return start, end, total, true
}

// FormatBytes writes a byte count the way the Hub shows sizes ("7.75 GB", "168 MB").
func FormatBytes(n int64) string {
	const k = 1000
	v := float64(n)
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.0f kB", v/k)
	case n < k*k*k:
		return fmt.Sprintf("%.0f MB", v/(k*k))
	default:
		return fmt.Sprintf("%.2f GB", v/(k*k*k))
	}
}
