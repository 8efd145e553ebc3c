package hub

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

// requiredRemote are the files a repository must list for Download to make a usable folder.
var requiredRemote = []string{
	"model_index.json", "scheduler/scheduler_config.json", "text_encoder/config.json",
	"tokenizer/tokenizer.json", "transformer/config.json", "vae/config.json",
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

func (c *client) list(ctx context.Context, repo string) (*Listing, error) {
	if !repoRE.MatchString(repo) {
		return nil, fmt.Errorf("repository name %q is not of the form owner/name", repo)
	}
	u := c.apiURL(repo)
	var body []byte
	err := c.retry(ctx, "listing of "+repo, func(ctx context.Context) (int64, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return 0, permanent(err)
		}
		c.authorize(req)
		req.Header.Set("Accept", "application/json")
		resp, err := c.http.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, c.statusError(resp, repo, "")
		}
		body, err = io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		return 0, err
	})
	if err != nil {
		return nil, err
	}
	return parseListing(repo, body)
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

func parseListing(repo string, body []byte) (*Listing, error) {
	var m apiModel
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("listing of %s: malformed JSON from the Hub API: %w", repo, err)
	}
	l := &Listing{Repo: repo, Commit: m.SHA}
	if g := strings.TrimSpace(string(m.Gated)); g != "" && g != "false" && g != "null" {
		l.Gated = true
	}
	seen := map[string]bool{}
	for _, s := range m.Siblings {
		p := s.RFilename
		if !Needed(p) {
			l.Skipped++
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(p)) || strings.Contains(p, `\`) || seen[p] {
			return nil, fmt.Errorf("listing of %s: unusable file name %q", repo, p)
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
		if f.Size < 0 {
			return nil, fmt.Errorf("listing of %s: %s has a negative size", repo, p)
		}
		l.Files = append(l.Files, f)
	}
	slices.SortFunc(l.Files, func(a, b RemoteFile) int { return strings.Compare(a.Path, b.Path) })
	var missing []string
	for _, p := range requiredRemote {
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
		return nil, fmt.Errorf("%s does not look like a FLUX.2-klein repository in diffusers layout: it lacks %s", repo, strings.Join(missing, ", "))
	}
	return l, nil
}

// errNoListing is returned by readManifest when a folder holds no download manifest.
var errNoListing = errors.New("no download manifest")
