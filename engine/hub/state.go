package hub

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"kleinbild/weights"
)

// StateDir is the folder, inside a model folder, holding partial downloads and the manifest.
const StateDir = ".kleinbild-download"

const (
	stateVersion    = 1
	manifestName    = "manifest.json"
	partSuffix      = ".part"
	partStateSuffix = ".part.json"
)

// partFile is an open partial download. *os.File implements it.
type partFile interface {
	io.WriterAt
	Truncate(size int64) error
	Stat() (fs.FileInfo, error)
	Sync() error
	Close() error
}

func openOSPart(path string) (partFile, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// partState is the JSON saved next to a part file: which byte ranges are complete, and what
// the file is expected to be (a state for another version of the file is discarded).
type partState struct {
	Version int    `json:"version"`
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256,omitempty"`
	BlobID  string `json:"blob_id,omitempty"`
	// ETag is the validator of the server's responses; a different one means the file changed.
	ETag string `json:"etag,omitempty"`
	// Done lists completed byte ranges [lo, hi), sorted and merged.
	Done [][2]int64 `json:"done"`
}

func newPartState(f RemoteFile) partState {
	return partState{Version: stateVersion, Path: f.Path, Size: f.Size, SHA256: f.SHA256, BlobID: f.BlobID, Done: [][2]int64{}}
}

// matches reports whether the state belongs to this version of the remote file.
func (s *partState) matches(f RemoteFile) bool {
	return s.Version == stateVersion && s.Path == f.Path && s.Size == f.Size && s.SHA256 == f.SHA256 && s.BlobID == f.BlobID
}

// valid checks that the ranges are sorted, disjoint and inside the file.
func (s *partState) valid() bool {
	var prev int64
	for _, r := range s.Done {
		if r[0] < prev || r[1] <= r[0] || r[1] > s.Size {
			return false
		}
		prev = r[1]
	}
	return true
}

// add records [lo, hi) as complete, merging with neighbours.
func (s *partState) add(lo, hi int64) {
	rs := append(s.Done, [2]int64{lo, hi})
	slices.SortFunc(rs, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	s.Done = out
}

// doneBytes is the number of completed bytes.
func (s *partState) doneBytes() int64 {
	var n int64
	for _, r := range s.Done {
		n += r[1] - r[0]
	}
	return n
}

// missing returns the incomplete byte ranges, split into pieces of at most chunk bytes.
func (s *partState) missing(chunk int64) [][2]int64 {
	var out [][2]int64
	split := func(lo, hi int64) {
		for lo < hi {
			end := min(lo+chunk, hi)
			out = append(out, [2]int64{lo, end})
			lo = end
		}
	}
	var at int64
	for _, r := range s.Done {
		split(at, r[0])
		at = r[1]
	}
	split(at, s.Size)
	return out
}

// paths of a file's partial download.
func partPath(dir, rel string) string {
	return filepath.Join(dir, StateDir, filepath.FromSlash(rel)+partSuffix)
}

func partStatePath(dir, rel string) string {
	return filepath.Join(dir, StateDir, filepath.FromSlash(rel)+partStateSuffix)
}

func readPartState(path string) (partState, error) {
	var s partState
	raw, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// writeJSON writes v as JSON atomically (temporary file, sync, rename).
func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return weights.WriteAtomic(path, func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(v)
	})
}

// manifest records what a download fetched and which local files were verified, so that a
// later run skips re-hashing them and Validate can check hashes offline.
type manifest struct {
	Version  int            `json:"version"`
	Repo     string         `json:"repo"`
	Commit   string         `json:"commit,omitempty"`
	Endpoint string         `json:"endpoint,omitempty"`
	Files    []manifestFile `json:"files"`
}

type manifestFile struct {
	RemoteFile
	// Verified* describe the local file when its hash was last checked.
	VerifiedSize    int64 `json:"verified_size,omitempty"`
	VerifiedModTime int64 `json:"verified_mod_time_ns,omitempty"`
}

func manifestPath(dir string) string { return filepath.Join(dir, StateDir, manifestName) }

func readManifest(dir string) (*manifest, error) {
	raw, err := os.ReadFile(manifestPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoListing
	}
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Version != stateVersion {
		return nil, fmt.Errorf("%s: unreadable download manifest", manifestPath(dir))
	}
	return &m, nil
}

// listing returns the manifest's files as a Listing.
func (m *manifest) listing() *Listing {
	l := &Listing{Repo: m.Repo, Commit: m.Commit}
	for _, f := range m.Files {
		l.Files = append(l.Files, f.RemoteFile)
	}
	return l
}

// verified reports whether the manifest says the local file at path was verified as f and
// has not changed since (same size and modification time).
func (m *manifest) verified(f RemoteFile, path string) bool {
	if m == nil {
		return false
	}
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	for _, e := range m.Files {
		if e.RemoteFile == f {
			return e.VerifiedSize == st.Size() && e.VerifiedModTime == st.ModTime().UnixNano() && st.Size() == f.Size
		}
	}
	return false
}

// markVerified records that the local file at path is verified as f.
func (m *manifest) markVerified(f RemoteFile, path string) {
	st, err := os.Stat(path)
	if err != nil {
		return
	}
	e := manifestFile{RemoteFile: f, VerifiedSize: st.Size(), VerifiedModTime: st.ModTime().UnixNano()}
	for i := range m.Files {
		if m.Files[i].Path == f.Path {
			m.Files[i] = e
			return
		}
	}
	m.Files = append(m.Files, e)
}

// find returns the manifest entry of path p.
func (m *manifest) find(p string) (manifestFile, bool) {
	if m == nil {
		return manifestFile{}, false
	}
	for _, e := range m.Files {
		if e.Path == p {
			return e, true
		}
	}
	return manifestFile{}, false
}
