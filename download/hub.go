// Package download fetches FLUX.2-klein model folders from the Hugging Face Hub and checks model
// folders on disk.
//
// Download lists a repository through the Hub API, keeps only the files the engine reads
// (see Needed), and fetches them with several bounded parallel HTTP range requests. It
// reports progress through a callback, retries transient failures with exponential backoff,
// resumes after a cancellation, a crash or a restart from the partial state it keeps under
// DIR/.kleinbild-download/, verifies every file (sha256 for LFS files, the git blob sha1 or
// at least the size for small ones) and renames a file to its final name only once verified.
// DownloadVariant also fetches assembled models (Assembled): a quantized GGUF transformer and
// text encoder from their own repositories with the official VAE and tokenizer, 5 to 9 GB
// instead of 16, each repository resumed and verified the same way.
//
// Validate checks a folder in place (one made by Download, by another tool, or a Hugging
// Face cache snapshot whose files are symlinks into blobs/) and reports precisely what is
// missing or corrupt.
package download

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kleinbild/internal/safefile"
)

// DefaultEndpoint is the Hugging Face Hub. The HF_ENDPOINT environment variable overrides it,
// as in huggingface_hub.
const DefaultEndpoint = "https://huggingface.co"

// Variant is one published FLUX.2-klein model.
type Variant struct {
	// ID is the short name used on the command line, e.g. "klein-4b".
	ID string
	// Repo is the Hugging Face repository, e.g. "black-forest-labs/FLUX.2-klein-4B".
	Repo string
	// Title is a human-readable description.
	Title string
	// Distilled models need 4 steps; base models 50 steps with guidance.
	Distilled bool
	// Gated repositories need an access token and an accepted licence.
	Gated bool
	// ApproxBytes is roughly what Download fetches (the exact size comes from the listing).
	ApproxBytes int64
	// Quant, Quality and Parts are set for an assembled model (see Assembled): its
	// quantization ("Q8_0"), what that costs in image quality (one sentence), and the
	// repositories its files come from (Repo is then the official repository, which gives
	// the VAE and tokenizer). DownloadVariant fetches either kind.
	Quant, Quality string
	Parts          []Part
}

// Variants lists the known FLUX.2-klein repositories, the default (klein-4b) first.
func Variants() []Variant {
	const gb = 1_000_000_000
	return []Variant{
		{ID: "klein-4b", Repo: "black-forest-labs/FLUX.2-klein-4B", Title: "FLUX.2 [klein] 4B, distilled (4 steps)", Distilled: true, ApproxBytes: 16 * gb},
		{ID: "klein-base-4b", Repo: "black-forest-labs/FLUX.2-klein-base-4B", Title: "FLUX.2 [klein] 4B base (50 steps, guidance)", ApproxBytes: 16 * gb},
		{ID: "klein-9b", Repo: "black-forest-labs/FLUX.2-klein-9B", Title: "FLUX.2 [klein] 9B, distilled (4 steps; gated)", Distilled: true, Gated: true, ApproxBytes: 35 * gb},
		{ID: "klein-base-9b", Repo: "black-forest-labs/FLUX.2-klein-base-9B", Title: "FLUX.2 [klein] 9B base (50 steps, guidance; gated)", Gated: true, ApproxBytes: 35 * gb},
	}
}

// VariantByID returns the variant with the given ID (case-insensitive).
func VariantByID(id string) (Variant, error) {
	var ids []string
	for _, v := range Variants() {
		if strings.EqualFold(v.ID, id) {
			return v, nil
		}
		ids = append(ids, v.ID)
	}
	return Variant{}, fmt.Errorf("unknown model variant %q: choose one of %s", id, strings.Join(ids, ", "))
}

// Options configure List and Download. The zero value works: every field has a default.
type Options struct {
	// Endpoint is the Hub's base URL; empty means $HF_ENDPOINT, else DefaultEndpoint.
	Endpoint string
	// Token is a Hugging Face access token; empty means DefaultToken() ($HF_TOKEN or the
	// token file huggingface_hub's login writes). It is sent to the Hub host only, never to
	// the CDN hosts the Hub redirects file downloads to (their URLs are signed).
	Token string
	// Revision is the branch, tag or commit to fetch; empty means "main".
	Revision string
	// Connections bounds the parallel HTTP requests (default 4).
	Connections int
	// ChunkBytes is the size of one range request (default 32 MiB).
	ChunkBytes int64
	// MaxRetries bounds consecutive failed attempts of one request that make no progress
	// (default 8). Attempts that receive data reset the count, so a connection that keeps
	// dropping still completes the file.
	MaxRetries int
	// RetryDelay is the first backoff delay, doubled per failed attempt up to MaxRetryDelay
	// (defaults 1 s and 30 s), with random jitter.
	RetryDelay, MaxRetryDelay time.Duration
	// StallTimeout aborts and retries a request that receives nothing for this long (default 60 s).
	StallTimeout time.Duration
	// GiveUpAfter ends a request's retries once it has received nothing for this long over
	// at least two attempts (default 3 min): a dead connection fails in minutes, not after
	// every retry's stall timeout and backoff.
	GiveUpAfter time.Duration
	// MinRate is the least average rate, in bytes per second, at which the data of failed
	// attempts counts as progress for MaxRetries and GiveUpAfter (default 4 KiB/s; at least
	// MinRate bytes): the average runs over the window since the last progress, backoffs
	// included, so a server that sends a trickle and stalls, on every request, is given up.
	MinRate int64
	// HTTPClient replaces the default client. Its CheckRedirect is wrapped so that the token
	// never leaves the Hub host.
	HTTPClient *http.Client
	// Progress, when set, receives progress reports from one goroutine at a time, about every
	// ProgressInterval (default 500 ms) and at every phase change. It must return quickly.
	Progress         func(Progress)
	ProgressInterval time.Duration

	// openPart replaces how part files are opened (tests inject write failures).
	openPart func(path string) (partFile, error)
}

// withDefaults resolves every default, reading the environment for the endpoint and token.
func (o Options) withDefaults() Options {
	if o.Endpoint == "" {
		o.Endpoint = os.Getenv("HF_ENDPOINT")
	}
	if o.Endpoint == "" {
		o.Endpoint = DefaultEndpoint
	}
	o.Endpoint = strings.TrimRight(o.Endpoint, "/")
	if o.Token == "" {
		o.Token = DefaultToken()
	}
	if o.Revision == "" {
		o.Revision = "main"
	}
	if o.Connections <= 0 {
		o.Connections = 4
	}
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = 32 << 20
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 8
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Second
	}
	if o.MaxRetryDelay <= 0 {
		o.MaxRetryDelay = 30 * time.Second
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = 60 * time.Second
	}
	if o.GiveUpAfter <= 0 {
		o.GiveUpAfter = 3 * time.Minute
	}
	if o.MinRate <= 0 {
		o.MinRate = 4 << 10
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = 500 * time.Millisecond
	}
	if o.openPart == nil {
		o.openPart = openOSPart
	}
	return o
}

// DefaultToken returns the Hugging Face token from the environment the way huggingface_hub
// finds it: $HF_TOKEN, then the legacy $HUGGING_FACE_HUB_TOKEN, then the file
// $HF_TOKEN_PATH, $HF_HOME/token or ~/.cache/huggingface/token. It returns "" when none is set.
func DefaultToken() string {
	for _, k := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"} {
		if t := strings.TrimSpace(os.Getenv(k)); t != "" {
			return t
		}
	}
	path := os.Getenv("HF_TOKEN_PATH")
	if path == "" {
		path = filepath.Join(hfHome(), "token")
	}
	if raw, err := safefile.ReadRegular(path, safefile.MaxConfigBytes); err == nil {
		return strings.TrimSpace(string(raw))
	}
	return ""
}

// hfHome is huggingface_hub's HF_HOME: $HF_HOME, else $XDG_CACHE_HOME/huggingface, else
// ~/.cache/huggingface.
func hfHome() string {
	if h := os.Getenv("HF_HOME"); h != "" {
		return h
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "huggingface")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".cache", "huggingface")
	}
	return filepath.Join(home, ".cache", "huggingface")
}

// RepoPage is the web page of a repository (where its licence is accepted).
func RepoPage(endpoint, repo string) string {
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	return strings.TrimRight(endpoint, "/") + "/" + repo
}
