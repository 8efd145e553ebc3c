package download

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 23, item 8: a re-run over a file with one flipped byte (same size, same time) finds
// it by the stored sample hash and fetches it again instead of reporting the model ready.
func TestDownloadRerunFindsFlippedByte(t *testing.T) {
	files := testRepoFiles(23)
	h := newFakeHub(t, testRepo, files)
	dir := t.TempDir()
	if _, err := Download(context.Background(), testRepo, dir, fastOptions()); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "text_encoder", "model-00002-of-00002.safetensors")
	st, _ := os.Stat(bad)
	raw, _ := os.ReadFile(bad)
	raw[7] ^= 0x40
	os.WriteFile(bad, raw, 0o644)
	os.Chtimes(bad, st.ModTime(), st.ModTime())
	before := h.served.Load()
	if _, err := Download(context.Background(), testRepo, dir, fastOptions()); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, files)
	if h.served.Load() == before {
		t.Error("nothing fetched again: the flipped byte went unnoticed")
	}
}

// stubHub serves handler as the Hub endpoint.
func stubHub(t *testing.T, handler http.HandlerFunc) Options {
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	o := fastOptions()
	o.Endpoint = srv.URL
	o.Token = "x"
	return o
}

// Issue 23, item 8: a listing whose body stalls after a few bytes is abandoned by the stall
// timer (it hung forever: only the response-header timeout applied).
func TestListingBodyStall(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	o := stubHub(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte(`{"sha": "0`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	o.StallTimeout = 200 * time.Millisecond
	o.MaxRetries = 2
	done := make(chan error, 1)
	go func() { _, err := List(context.Background(), testRepo, o); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no data") {
			t.Errorf("stalled listing: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a stalled listing body hung the download")
	}
}

// Issue 23, item 8: redirects to another scheme, redirect loops and malformed responses
// fail at once (each was retried for minutes), with a message saying what is wrong.
func TestPermanentTransportErrorsFailAtOnce(t *testing.T) {
	cases := map[string]http.HandlerFunc{
		"file scheme": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		},
		"gopher scheme": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "gopher://x/", http.StatusFound) },
		"loop":          func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, r.URL.Path, http.StatusFound) },
		"malformed header": func(w http.ResponseWriter, r *http.Request) {
			conn, buf, _ := w.(http.Hijacker).Hijack()
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n")
			buf.Flush()
			conn.Close()
		},
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			var calls int
			o := stubHub(t, func(w http.ResponseWriter, r *http.Request) { calls++; h(w, r) })
			o.MaxRetries = 5
			o.RetryDelay = 300 * time.Millisecond // several retries would show in the call count
			_, err := List(context.Background(), testRepo, o)
			if err == nil {
				t.Fatal("listing succeeded")
			}
			if strings.Contains(err.Error(), "giving up after") {
				t.Errorf("retried: %v", err)
			}
		})
	}
}

// Issue 23, item 8: a server answering 503 with Retry-After: 300 is waited on for at most
// maxRetryAfter per try, and the wait is reported with the server's request.
func TestRetryAfterIsCappedAndReported(t *testing.T) {
	o := stubHub(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "300")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	o.MaxRetries = 1
	c, err := newClient(o.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	var notes []string
	ctx, cancel := context.WithCancel(context.Background())
	c.onRetry = func(what string, err error, wait time.Duration) {
		waits = append(waits, wait)
		notes = append(notes, retryNote(what, err, wait))
		cancel() // do not actually wait
	}
	c.list(ctx, testRepo)
	if len(waits) != 1 || waits[0] > maxRetryAfter {
		t.Fatalf("waits %v, want one of at most %v", waits, maxRetryAfter)
	}
	if !strings.Contains(notes[0], "asked to wait 5m0s") {
		t.Errorf("note %q does not report the server's Retry-After", notes[0])
	}
}

// Issue 23, item 8: a connection that keeps failing without data is given up after
// GiveUpAfter, long before MaxRetries attempts (a dead connection took 11 minutes).
func TestRetryGivesUpWithoutData(t *testing.T) {
	o := fastOptions()
	o.MaxRetries = 1000
	o.RetryDelay = 20 * time.Millisecond
	o.MaxRetryDelay = 20 * time.Millisecond
	o.GiveUpAfter = 100 * time.Millisecond
	c, err := newClient(o.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	attempts := 0
	err = c.retry(context.Background(), "file", func(context.Context) (int64, error) {
		attempts++
		return 0, errStalled
	})
	if err == nil || !strings.Contains(err.Error(), "without data") || attempts >= 1000 {
		t.Fatalf("after %d attempts: %v", attempts, err)
	}
}

// Issue 30: a server that sends 100 bytes and then stalls, on every request, is given up:
// such a trickle is no progress (each attempt used to reset the failure count).
func TestRetryGivesUpOnTrickle(t *testing.T) {
	o := fastOptions()
	o.MaxRetries = 5
	o.RetryDelay = time.Millisecond
	o.MaxRetryDelay = time.Millisecond
	o.GiveUpAfter = time.Hour
	c, err := newClient(o.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	attempts := 0
	err = c.retry(context.Background(), "file", func(context.Context) (int64, error) {
		attempts++
		if attempts > 1000 {
			return 0, permanent(errors.New("still retrying"))
		}
		time.Sleep(2 * time.Millisecond) // the stall
		return 100, errStalled
	})
	if err == nil || !strings.Contains(err.Error(), "giving up after 6 failed attempts") {
		t.Fatalf("after %d attempts: %v", attempts, err)
	}
	// Data at a real rate still counts: a connection that keeps dropping completes.
	attempts = 0
	err = c.retry(context.Background(), "file", func(context.Context) (int64, error) {
		attempts++
		if attempts == 20 {
			return 0, nil
		}
		return 1 << 20, errStalled
	})
	if err != nil {
		t.Fatalf("a dropping but fast connection: %v after %d attempts", err, attempts)
	}
}
