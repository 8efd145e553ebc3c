package download

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
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

// gaps returns the incomplete byte ranges (one per hole, so at most len(Done)+1).
func (s *partState) gaps() [][2]int64 {
	var out [][2]int64
	var at int64
	for _, r := range s.Done {
		if r[0] > at {
			out = append(out, [2]int64{at, r[0]})
		}
		at = r[1]
	}
	if at < s.Size {
		out = append(out, [2]int64{at, s.Size})
	}
	return out
}

// chunkCount is the number of requests of at most chunk (> 0) bytes that cover hi-lo bytes.
func chunkCount(lo, hi, chunk int64) int64 {
	n := hi - lo
	if n <= 0 {
		return 0
	}
	c := n / chunk
	if n%chunk != 0 {
		c++
	}
	return c
}

// chunkEnd is the end of the request of at most chunk bytes that starts at lo, below hi.
func chunkEnd(lo, hi, chunk int64) int64 {
	if hi-lo > chunk {
		return lo + chunk
	}
	return hi
}

// paths of a file's partial download.
func partPath(dir, rel string) string {
	return filepath.Join(dir, StateDir, filepath.FromSlash(rel)+partSuffix)
}

func partStatePath(dir, rel string) string {
	return filepath.Join(dir, StateDir, filepath.FromSlash(rel)+partStateSuffix)
}

// Limits of the part state file: far above what a download writes (a few ranges per
// connection), far below what could exhaust memory.
const (
	maxStateBytes  = 1 << 20
	maxStateRanges = 10_000
	maxETagBytes   = 1024
)

// readPartState reads and checks the part state at path (a regular file of at most
// maxStateBytes).
func readPartState(path string) (partState, error) {
	raw, err := readSmallFile(path, maxStateBytes)
	if err != nil {
		return partState{}, err
	}
	s, err := parsePartState(raw)
	if err != nil {
		return partState{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parsePartState decodes a part state and checks every field: the version, a listable path,
// a size within maxFileBytes, well-formed hashes, a printable ETag, and sorted, disjoint
// ranges inside the file.
func parsePartState(raw []byte) (partState, error) {
	var s partState
	if len(raw) > maxStateBytes {
		return s, fmt.Errorf("part state larger than %d bytes", maxStateBytes)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return partState{}, fmt.Errorf("malformed part state: %w", err)
	}
	var err error
	switch {
	case s.Version != stateVersion:
		err = fmt.Errorf("part state version %d, want %d", s.Version, stateVersion)
	case checkName(s.Path) != nil:
		err = fmt.Errorf("part state for the unusable file name %q: %w", s.Path, checkName(s.Path))
	case checkSize(s.Size) != nil:
		err = fmt.Errorf("part state of %s: %w", s.Path, checkSize(s.Size))
	case s.SHA256 != "" && (len(s.SHA256) != 64 || !hexRE.MatchString(s.SHA256)):
		err = fmt.Errorf("part state of %s: malformed sha256 %q", s.Path, s.SHA256)
	case s.BlobID != "" && (len(s.BlobID) != 40 || !hexRE.MatchString(s.BlobID)):
		err = fmt.Errorf("part state of %s: malformed blob id %q", s.Path, s.BlobID)
	case len(s.ETag) > maxETagBytes || !printableASCII(s.ETag):
		err = fmt.Errorf("part state of %s: malformed ETag %q", s.Path, s.ETag)
	case len(s.Done) > maxStateRanges:
		err = fmt.Errorf("part state of %s: %d ranges, at most %d expected", s.Path, len(s.Done), maxStateRanges)
	case !s.valid():
		err = fmt.Errorf("part state of %s: ranges not sorted, disjoint and inside the %d-byte file", s.Path, s.Size)
	}
	if err != nil {
		return partState{}, err
	}
	if s.Done == nil {
		s.Done = [][2]int64{}
	}
	return s, nil
}

// printableASCII reports whether s holds only printable ASCII characters.
func printableASCII(s string) bool {
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// readSmallFile reads path, which must be a regular file of at most limit bytes (checked
// before opening too, so that a FIFO does not block).
func readSmallFile(path string, limit int64) ([]byte, error) {
	return safefile.ReadRegular(path, limit)
}

// writeJSON writes v as JSON atomically (temporary file, sync, rename).
func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
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
	// VerifiedSample is the sha256 of the file's first and last MiB when it was verified:
	// a re-run checks it (cheap) besides size and time, so a file changed in place without
	// its size or time changing is fetched again. --verify still hashes everything.
	VerifiedSample string `json:"verified_sample,omitempty"`
}

// sampleBytes is how much of each end of a file fileSample hashes.
const sampleBytes = 1 << 20

// fileSample hashes the first and last sampleBytes of the regular file at path (the whole
// file when it is smaller than both together).
func fileSample(path string) (string, error) {
	f, st, err := safefile.OpenRegular(path, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, min(st.Size(), sampleBytes))); err != nil {
		return "", err
	}
	if tail := max(st.Size()-sampleBytes, sampleBytes); tail < st.Size() {
		if _, err := io.Copy(h, io.NewSectionReader(f, tail, st.Size()-tail)); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func manifestPath(dir string) string { return filepath.Join(dir, StateDir, manifestName) }

// maxManifestBytes bounds the manifest file.
const maxManifestBytes = 16 << 20

func readManifest(dir string) (*manifest, error) {
	raw, err := readSmallFile(manifestPath(dir), maxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoListing
	}
	if err != nil {
		return nil, fmt.Errorf("unreadable download manifest: %w", err)
	}
	m, err := parseManifest(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: unreadable download manifest: %w", manifestPath(dir), err)
	}
	return m, nil
}

// parseManifest decodes a manifest and checks its version, file names and sizes.
func parseManifest(raw []byte) (*manifest, error) {
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m.Version != stateVersion {
		return nil, fmt.Errorf("version %d, want %d", m.Version, stateVersion)
	}
	if len(m.Files) > maxListedFiles {
		return nil, fmt.Errorf("more than %d files", maxListedFiles)
	}
	for _, f := range m.Files {
		if err := checkName(f.Path); err != nil {
			return nil, fmt.Errorf("unusable file name %q: %w", f.Path, err)
		}
		if err := checkSize(f.Size); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
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
			if e.VerifiedSize != st.Size() || e.VerifiedModTime != st.ModTime().UnixNano() || st.Size() != f.Size || e.VerifiedSample == "" {
				return false
			}
			sample, err := fileSample(path)
			return err == nil && sample == e.VerifiedSample
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
	sample, err := fileSample(path)
	if err != nil {
		return
	}
	e := manifestFile{RemoteFile: f, VerifiedSize: st.Size(), VerifiedModTime: st.ModTime().UnixNano(), VerifiedSample: sample}
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
