package download

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors, matched with errors.Is. Returned errors wrap them with plain-words
// context (which repository or file, and what to do).
var (
	// ErrAuth: the Hub answered 401 (no token, or a rejected one, for a gated or private repository).
	ErrAuth = errors.New("authentication needed")
	// ErrForbidden: the Hub answered 403 (licence not accepted, or the token lacks access).
	ErrForbidden = errors.New("access denied")
	// ErrNotFound: the Hub answered 404 (repository, revision or file).
	ErrNotFound = errors.New("not found")
	// ErrDiskFull: a write failed because the disk (or quota) is full. Partial state is kept.
	ErrDiskFull = errors.New("disk full")
	// ErrChecksum: a downloaded file's size or hash differs from the listing. The bad data is
	// discarded and never placed under the final name.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrRemoteChanged: a file changed on the server during the download (ETag, If-Range or
	// size). Download restarts that file by itself up to twice before returning this.
	ErrRemoteChanged = errors.New("remote file changed")
)

// ChecksumError is a file whose size or hash differs from the listing: Path is the file's
// path in the repository, Detail what differs ("sha256 … , expected …"). It matches
// ErrChecksum.
type ChecksumError struct {
	Path, Detail string
}

func (e *ChecksumError) Error() string { return e.Path + ": " + e.Detail + ": " + ErrChecksum.Error() }

func (e *ChecksumError) Is(target error) bool { return target == ErrChecksum }

// HTTPError is a non-success answer of the Hub or its CDN.
type HTTPError struct {
	Status int
	URL    string
	Repo   string
	// Code and Message are the Hub's X-Error-Code and X-Error-Message headers, if any.
	Code, Message string
	// Gated and TokenSent describe the request, for the explanation.
	Gated, TokenSent bool
	// Page is the repository's web page.
	Page string
}

func (e *HTTPError) Error() string {
	switch e.Status {
	case http.StatusUnauthorized:
		if !e.TokenSent {
			if e.Gated || e.Code == "GatedRepo" {
				return fmt.Sprintf("%s is a gated model: a Hugging Face access token is needed. Accept the licence at %s, create a read token at https://huggingface.co/settings/tokens and provide it (token option or the HF_TOKEN environment variable)", e.Repo, e.Page)
			}
			return fmt.Sprintf("%s needs authentication (private or gated repository, or it does not exist): provide a Hugging Face access token (token option or HF_TOKEN); create one at https://huggingface.co/settings/tokens", e.Repo)
		}
		return fmt.Sprintf("the Hugging Face token was rejected for %s (invalid or expired?): check it at https://huggingface.co/settings/tokens", e.Repo)
	case http.StatusForbidden:
		if e.Gated || e.Code == "GatedRepo" {
			return fmt.Sprintf("access to the gated model %s is not granted to this token: accept the licence at %s while logged in, and make sure the token may read gated repositories", e.Repo, e.Page)
		}
		return fmt.Sprintf("access to %s denied (HTTP 403%s)", e.URL, e.detail())
	case http.StatusNotFound:
		switch e.Code {
		case "RepoNotFound":
			return fmt.Sprintf("repository %s not found (private repositories also need a token)", e.Repo)
		case "RevisionNotFound":
			return fmt.Sprintf("revision not found in %s: %s", e.Repo, e.URL)
		}
		return fmt.Sprintf("not found: %s%s", e.URL, e.detail())
	}
	return fmt.Sprintf("HTTP %d %s from %s%s", e.Status, http.StatusText(e.Status), e.URL, e.detail())
}

func (e *HTTPError) detail() string {
	if e.Message != "" {
		if !printableText(e.Message) {
			return ": " + strconv.Quote(e.Message)
		}
		return ": " + e.Message
	}
	return ""
}

// Unwrap maps the status to ErrAuth, ErrForbidden or ErrNotFound.
func (e *HTTPError) Unwrap() error {
	switch e.Status {
	case http.StatusUnauthorized:
		return ErrAuth
	case http.StatusForbidden:
		return ErrForbidden
	case http.StatusNotFound:
		return ErrNotFound
	}
	return nil
}

// transient reports whether retrying may help: server errors, rate limits and timeouts.
func (e *HTTPError) transient() bool {
	return e.Status >= 500 || e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout
}

// statusError builds the HTTPError of a failed response (the body is not read).
func (c *client) statusError(resp *http.Response, repo string, gatedHint string) error {
	e := &HTTPError{
		Status:    resp.StatusCode,
		URL:       resp.Request.URL.Redacted(),
		Repo:      repo,
		Code:      resp.Header.Get("X-Error-Code"),
		Message:   strings.TrimSpace(resp.Header.Get("X-Error-Message")),
		Gated:     gatedHint == "gated",
		TokenSent: c.opts.Token != "",
		Page:      RepoPage(c.opts.Endpoint, repo),
	}
	// Strip signed query strings of CDN URLs from messages.
	if i := strings.IndexByte(e.URL, '?'); i >= 0 {
		e.URL = e.URL[:i]
	}
	if e.transient() {
		return &retryAfterError{err: e, after: parseRetryAfter(resp.Header.Get("Retry-After"))}
	}
	return permanent(e)
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (p *permanentError) Error() string { return p.err.Error() }
func (p *permanentError) Unwrap() error { return p.err }

func permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// printableText reports whether s is valid UTF-8 without control or invisible characters.
func printableText(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
