package download

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kleinbild/engine/source"
)

// Limits on what a listing may claim, checked before anything is planned or written.
const (
	// maxFileBytes bounds one listed file (the largest FLUX.2 weight file is about 16 GB).
	maxFileBytes = 256 << 30
	// maxListedFiles bounds the needed files of one listing (a real one has about 20), so
	// that sums of sizes cannot overflow.
	maxListedFiles = 10_000
	// maxListingBytes bounds the listing's JSON.
	maxListingBytes = 64 << 20
	// maxNameBytes bounds a listed path; maxElemBytes one element of it.
	maxNameBytes, maxElemBytes = 1024, 255
)

// RemoteFile is one file of a repository as the Hub lists it.
type RemoteFile struct {
	// Path is relative to the repository root, with forward slashes.
	Path string `json:"path"`
	Size int64  `json:"size"`
	// SHA256 is the content hash of LFS files ("" for files stored in git).
	SHA256 string `json:"sha256,omitempty"`
	// BlobID is the git blob id (sha1 of "blob <size>\x00" + content) of files stored in
	// git; for LFS files it is the id of the pointer file and is not used.
	BlobID string `json:"blob_id,omitempty"`
}

// LFS reports whether the file is stored in LFS (and has a sha256).
func (f RemoteFile) LFS() bool { return f.SHA256 != "" }

// Listing is the part of a repository that Download fetches.
type Listing struct {
	Repo string `json:"repo"`
	// Commit is the revision's commit hash when the Hub reports it.
	Commit string `json:"commit,omitempty"`
	// Gated is true when the repository requires an accepted licence and a token.
	Gated bool `json:"gated,omitempty"`
	// Files are the needed files, sorted by path.
	Files []RemoteFile `json:"files"`
	// Skipped counts the repository's files that the engine does not need.
	Skipped int `json:"skipped,omitempty"`
}

// TotalBytes is the size of all listed files.
func (l *Listing) TotalBytes() int64 {
	var n int64
	for _, f := range l.Files {
		n += f.Size
	}
	return n
}

// File returns the listed file with the given path.
func (l *Listing) File(p string) (RemoteFile, bool) {
	for _, f := range l.Files {
		if f.Path == p {
			return f, true
		}
	}
	return RemoteFile{}, false
}

// apiModel is the JSON of GET /api/models/<repo>?blobs=true.
type apiModel struct {
	ID       string          `json:"id"`
	SHA      string          `json:"sha"`
	Gated    json.RawMessage `json:"gated"` // false, "auto" or "manual"
	Siblings []struct {
		RFilename string `json:"rfilename"`
		Size      *int64 `json:"size"`
		BlobID    string `json:"blobId"`
		LFS       *struct {
			SHA256 string `json:"sha256"`
			Size   int64  `json:"size"`
		} `json:"lfs"`
	} `json:"siblings"`
}

// weightExts are weight formats never fetched from the tokenizer folder.
var weightExts = []string{".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".onnx", ".gguf", ".msgpack", ".h5"}

// Needed reports whether the engine reads the repository file p (forward slashes):
// model_index.json, scheduler/scheduler_config.json, config.json plus the safetensors weights
// (and index) of text_encoder/, transformer/ and vae/, and the tokenizer/ files. Everything
// else (README, images, single-file checkpoints, other weight formats) is skipped.
func Needed(p string) bool {
	dir, name := path.Split(p)
	switch dir {
	case "":
		return name == "model_index.json"
	case "scheduler/":
		return name == "scheduler_config.json"
	case "text_encoder/", "transformer/", "vae/":
		return name == "config.json" || strings.HasSuffix(name, ".safetensors") || strings.HasSuffix(name, ".safetensors.index.json")
	case "tokenizer/":
		if strings.HasPrefix(name, ".") {
			return false
		}
		for _, ext := range weightExts {
			if strings.HasSuffix(name, ext) {
				return false
			}
		}
		return true
	}
	return false
}

var (
	repoRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	hexRE  = regexp.MustCompile(`^[0-9a-f]+$`)
)

// List fetches the repository listing from the Hub API and keeps the needed files.
func List(ctx context.Context, repo string, opts Options) (*Listing, error) {
	o := opts.withDefaults()
	c, err := newClient(o)
	if err != nil {
		return nil, err
	}
	return c.list(ctx, repo)
}

// selection decides which files of a repository a download fetches (needed) and what the
// listing must hold for the result to be usable (check, given the kept files).
type selection struct {
	needed func(p string) bool
	check  func(repo string, l *Listing) error
}

// diffusers is the selection of a whole model repository in diffusers layout.
var diffusers = selection{needed: Needed, check: checkDiffusers}

func (c *client) list(ctx context.Context, repo string) (*Listing, error) {
	return c.listSel(ctx, repo, diffusers)
}

// listSel fetches the listing of repo and keeps the files sel needs.
func (c *client) listSel(ctx context.Context, repo string, sel selection) (*Listing, error) {
	if !repoRE.MatchString(repo) {
		return nil, fmt.Errorf("repository name %q is not of the form owner/name", repo)
	}
	u := c.apiURL(repo)
	var body []byte
	err := c.retry(ctx, "listing of "+repo, func(ctx context.Context) (int64, error) {
		reqCtx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, u, nil)
		if err != nil {
			return 0, permanent(err)
		}
		c.authorize(req)
		req.Header.Set("Accept", "application/json")
		resp, err := c.http.Do(req)
		if err != nil {
			return 0, requestError(reqCtx, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, c.statusError(resp, repo, "")
		}
		// The stall timer that file bodies have: a body that stops arriving is abandoned.
		sr := newStallReader(resp.Body, c.opts.StallTimeout, cancel)
		defer sr.stop()
		body, err = io.ReadAll(io.LimitReader(sr, maxListingBytes+1))
		if err == nil && len(body) > maxListingBytes {
			return 0, permanent(fmt.Errorf("listing of %s: the Hub API sent more than %d bytes", repo, maxListingBytes))
		}
		if err != nil {
			return 0, requestError(reqCtx, err) // a partial listing is no progress
		}
		return 0, nil
	})
	if err != nil {
		return nil, err
	}
	return parseListingSel(repo, body, sel)
}

// apiURL is <endpoint>/api/models/<repo>?blobs=true, with /revision/<rev> for anything but main.
func (c *client) apiURL(repo string) string {
	u := c.opts.Endpoint + "/api/models/" + escapePath(repo)
	if c.opts.Revision != "main" {
		u += "/revision/" + url.PathEscape(c.opts.Revision)
	}
	return u + "?blobs=true"
}

// fileURL is <endpoint>/<repo>/resolve/<revision>/<path>.
func (c *client) fileURL(repo, p string) string {
	return c.opts.Endpoint + "/" + escapePath(repo) + "/resolve/" + url.PathEscape(c.opts.Revision) + "/" + escapePath(p)
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// parseListing parses the listing of a whole model repository in diffusers layout.
func parseListing(repo string, body []byte) (*Listing, error) {
	return parseListingSel(repo, body, diffusers)
}

// parseListingSel parses a Hub API listing, keeping (and checking) the files sel needs.
func parseListingSel(repo string, body []byte, sel selection) (*Listing, error) {
	var m apiModel
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("listing of %s: malformed JSON from the Hub API: %w", repo, err)
	}
	if m.SHA != "" && (len(m.SHA) > 64 || !hexRE.MatchString(m.SHA)) {
		return nil, fmt.Errorf("listing of %s: malformed commit hash %q", repo, m.SHA)
	}
	l := &Listing{Repo: repo, Commit: m.SHA}
	if g := strings.TrimSpace(string(m.Gated)); g != "" && g != "false" && g != "null" {
		l.Gated = true
	}
	seen := map[string]bool{}
	for _, s := range m.Siblings {
		p := s.RFilename
		if !sel.needed(p) {
			l.Skipped++
			continue
		}
		if err := checkName(p); err != nil {
			return nil, fmt.Errorf("listing of %s: unusable file name %q: %w", repo, p, err)
		}
		if seen[p] {
			return nil, fmt.Errorf("listing of %s: file name %q listed twice", repo, p)
		}
		if len(seen) == maxListedFiles {
			return nil, fmt.Errorf("listing of %s: more than %d needed files", repo, maxListedFiles)
		}
		seen[p] = true
		f := RemoteFile{Path: p}
		switch {
		case s.LFS != nil:
			f.Size = s.LFS.Size
			f.SHA256 = strings.ToLower(s.LFS.SHA256)
			if len(f.SHA256) != 64 || !hexRE.MatchString(f.SHA256) {
				return nil, fmt.Errorf("listing of %s: %s has a malformed sha256 %q", repo, p, s.LFS.SHA256)
			}
		case s.Size != nil:
			f.Size = *s.Size
			if b := strings.ToLower(s.BlobID); len(b) == 40 && hexRE.MatchString(b) {
				f.BlobID = b
			}
		default:
			return nil, fmt.Errorf("listing of %s: no size for %s (was the listing requested with blobs=true?)", repo, p)
		}
		if err := checkSize(f.Size); err != nil {
			return nil, fmt.Errorf("listing of %s: %s: %w", repo, p, err)
		}
		l.Files = append(l.Files, f)
	}
	slices.SortFunc(l.Files, func(a, b RemoteFile) int { return strings.Compare(a.Path, b.Path) })
	if err := sel.check(repo, l); err != nil {
		return nil, err
	}
	return l, nil
}

// checkDiffusers reports the files a diffusers-layout listing lacks for a usable folder.
func checkDiffusers(repo string, l *Listing) error {
	var missing []string
	for _, p := range source.RequiredFiles() { // the files a usable folder must have
		if _, ok := l.File(p); !ok {
			missing = append(missing, p)
		}
	}
	for _, dir := range []string{"text_encoder/", "transformer/", "vae/"} {
		if !slices.ContainsFunc(l.Files, func(f RemoteFile) bool {
			return strings.HasPrefix(f.Path, dir) && strings.HasSuffix(f.Path, ".safetensors")
		}) {
			missing = append(missing, dir+"*.safetensors")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s does not look like a FLUX.2-klein repository in diffusers layout: it lacks %s", repo, strings.Join(missing, ", "))
	}
	return nil
}

// checkName reports why the listed path p (forward slashes) cannot be a file name in a model
// folder: it must be a relative path of printable characters (no control, format or
// invisible characters, no invalid UTF-8), without empty, "." or ".." elements, and free of
// the characters Windows refuses or reinterprets (\ : * ? " < > |, a trailing dot or space).
func checkName(p string) error {
	switch {
	case p == "":
		return errors.New("empty name")
	case len(p) > maxNameBytes:
		return fmt.Errorf("longer than %d bytes", maxNameBytes)
	case !utf8.ValidString(p) || strings.ContainsRune(p, utf8.RuneError):
		return errors.New("not valid UTF-8")
	}
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("contains the control or invisible character %U", r)
		}
		if strings.ContainsRune(`\:*?"<>|`, r) {
			return fmt.Errorf("contains %q", r)
		}
	}
	for _, e := range strings.Split(p, "/") {
		switch {
		case e == "" || e == "." || e == "..":
			return errors.New(`not a relative path without empty, "." or ".." elements`)
		case len(e) > maxElemBytes:
			return fmt.Errorf("a path element is longer than %d bytes", maxElemBytes)
		case strings.HasSuffix(e, ".") || strings.HasSuffix(e, " "):
			return errors.New("a path element ends in a dot or space")
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return errors.New("not a local path on this system")
	}
	return nil
}

// checkSize refuses negative sizes and sizes over maxFileBytes.
func checkSize(n int64) error {
	switch {
	case n < 0:
		return fmt.Errorf("negative size %d", n)
	case n > maxFileBytes:
		return fmt.Errorf("claims %d bytes (%s); files over %s are refused", n, FormatBytes(n), FormatBytes(maxFileBytes))
	}
	return nil
}

// errNoListing is returned by readManifest when a folder holds no download manifest.
var errNoListing = errors.New("no download manifest")
