package download

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// client performs the HTTP requests of one List or Download call.
type client struct {
	opts    Options
	hubHost string // host[:port] of the endpoint: the only host that receives the token
	http    *http.Client

	// onRetry, when set, is told about every transient failure before its backoff.
	onRetry func(what string, err error, wait time.Duration)
}

func newClient(o Options) (*client, error) {
	u, err := url.Parse(o.Endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("the Hugging Face endpoint %q is not an http(s) URL", o.Endpoint)
	}
	c := &client{opts: o, hubHost: u.Host}
	base := o.HTTPClient
	if base == nil {
		base = &http.Client{Transport: defaultTransport(o.Connections)}
	}
	hc := *base // shallow copy: the caller's client is not modified
	prev := base.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if prev != nil {
			if err := prev(req, via); err != nil {
				return err
			}
		} else if len(via) >= 10 {
			return permanent(errors.New("stopped after 10 redirects (a redirect loop?)"))
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return permanent(fmt.Errorf("the server redirected to a %q URL; only http and https are followed", req.URL.Scheme))
		}
		// huggingface_hub drops the token when a download is redirected to another host
		// (the CDN URL is signed); Go's client alone would still send it to subdomains
		// such as cdn-lfs.huggingface.co. Keep it only for the Hub host itself (e.g. the
		// relative redirect of a renamed repository).
		if req.URL.Host != c.hubHost {
			req.Header.Del("Authorization")
		}
		return nil
	}
	c.http = &hc
	return c, nil
}

// defaultTransport uses HTTP/1.1 so that parallel range requests get separate TCP
// connections (over HTTP/2 they would share one connection's congestion window).
func defaultTransport(conns int) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ForceAttemptHTTP2 = false
	t.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	t.MaxIdleConnsPerHost = max(conns, 2)
	t.ResponseHeaderTimeout = 60 * time.Second
	return t
}

// authorize adds the token to a request for the Hub host.
func (c *client) authorize(req *http.Request) {
	if c.opts.Token != "" && req.URL.Host == c.hubHost {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
	req.Header.Set("User-Agent", "kleinbild")
}

// retryAfterError is a transient error whose server asked for a delay.
type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

// errStalled is the cause of a request aborted by the stall timer.
var errStalled = errors.New("no data received for too long")

// retry runs attempt until it succeeds, fails permanently, the context ends, or MaxRetries
// consecutive attempts fail without progress. attempt returns how many bytes it made
// durable before failing; progress (which resets the count) is at least MinRate bytes at an
// average of MinRate per second since the last progress.
func (c *client) retry(ctx context.Context, what string, attempt func(ctx context.Context) (int64, error)) error {
	failures := 0
	lastData := time.Now()
	var window int64 // bytes since lastData
	for {
		n, err := attempt(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var p *permanentError
		if errors.As(err, &p) {
			return fmt.Errorf("%s: %w", what, p.err)
		}
		if malformed(err) {
			return fmt.Errorf("%s: the server's answer is malformed: %w", what, err)
		}
		window += max(n, 0)
		if since := time.Since(lastData).Seconds(); window >= c.opts.MinRate && float64(window) >= float64(c.opts.MinRate)*since {
			failures, window = 0, 0
			lastData = time.Now()
		}
		failures++
		if failures > c.opts.MaxRetries {
			return fmt.Errorf("%s: giving up after %d failed attempts: %w", what, failures, err)
		}
		if silent := time.Since(lastData); failures > 1 && silent > c.opts.GiveUpAfter {
			return fmt.Errorf("%s: giving up after %d failed attempts and %s without data: %w", what, failures, silent.Round(time.Second), err)
		}
		wait := c.backoff(failures)
		var ra *retryAfterError
		if errors.As(err, &ra) && ra.after > wait {
			wait = min(ra.after, maxRetryAfter)
			if ra.after > maxRetryAfter {
				err = fmt.Errorf("%w (the server asked to wait %s)", err, ra.after.Round(time.Second))
			}
		}
		if c.onRetry != nil {
			c.onRetry(what, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// backoff is RetryDelay·2^(n-1) capped at MaxRetryDelay, with ±25 % jitter.
func (c *client) backoff(n int) time.Duration {
	d := c.opts.RetryDelay
	for i := 1; i < n && d < c.opts.MaxRetryDelay; i++ {
		d *= 2
	}
	d = min(d, c.opts.MaxRetryDelay)
	jitter := time.Duration(rand.Int64N(int64(d)/2+1)) - d/4
	return max(d+jitter, 0)
}

// maxRetryAfter caps the wait a server's Retry-After asks for (one try's wait; the
// attempts stay bounded by MaxRetries and GiveUpAfter).
const maxRetryAfter = 60 * time.Second

// malformed reports transport errors that retrying cannot fix: an answer that is not HTTP,
// bad header values, a URL scheme the client does not speak.
func malformed(err error) bool {
	s := err.Error()
	return strings.Contains(s, "malformed HTTP") || strings.Contains(s, "malformed MIME") ||
		strings.Contains(s, "bad Content-Length") || strings.Contains(s, "unsupported protocol scheme") ||
		strings.Contains(s, "invalid header")
}

// stallReader aborts a response body (through cancel) when no data arrives for timeout.
type stallReader struct {
	r       io.Reader
	timer   *time.Timer
	timeout time.Duration
}

func newStallReader(r io.Reader, timeout time.Duration, cancel context.CancelCauseFunc) *stallReader {
	return &stallReader{r: r, timeout: timeout, timer: time.AfterFunc(timeout, func() { cancel(errStalled) })}
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(s.timeout)
	}
	return n, err
}

func (s *stallReader) stop() { s.timer.Stop() }

// requestError makes a failed request's error readable: a stall or a dropped connection says so.
func requestError(reqCtx context.Context, err error) error {
	if errors.Is(context.Cause(reqCtx), errStalled) {
		return errStalled
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("timeout: %w", err)
	}
	return err
}

// retryNotes collects the latest transient failure for progress reports.
type retryNotes struct {
	mu    sync.Mutex
	note  string
	count int
}

func (r *retryNotes) add(what string, err error, wait time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count++
	r.note = retryNote(what, err, wait)
}

// retryNote says what failed and how long the download waits before trying again.
func retryNote(what string, err error, wait time.Duration) string {
	return fmt.Sprintf("%s: %v; retrying in %s", what, err, wait.Round(100*time.Millisecond))
}

// say sets the note without counting a retry (a wait that is not a failure).
func (r *retryNotes) say(note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.note = note
}

func (r *retryNotes) take() (string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.note
	r.note = ""
	return n, r.count
}
