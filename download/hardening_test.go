package download

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// listingWithExtra is the minimal listing plus one needed-looking sibling whose rfilename is
// the raw JSON text nameJSON (so that invalid UTF-8 can reach the parser).
func listingWithExtra(nameJSON string) []byte {
	base := string(listingJSON("false", strings.Repeat("b", 64)))
	return []byte(strings.Replace(base, `"siblings": [`, `"siblings": [`+"\n"+` {"rfilename": `+nameJSON+`, "size": 1},`, 1))
}

// printable reports whether s holds no control or invisible characters.
func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) && r != '\n' {
			return false
		}
	}
	return true
}

// Issue 13, item 10: names with control characters, NUL, invalid UTF-8 and the like are
// refused, and the error quotes them instead of echoing them raw.
func TestParseListingRejectsUnsafeNames(t *testing.T) {
	for _, name := range []string{
		"tokenizer/\x1b]0;owned\x07.json",
		"tokenizer/\x1b[2J.json",
		"tokenizer/a\nb.json",
		"tokenizer/a\rb.json",
		"tokenizer/a\tb.json",
		"tokenizer/a\x00.json",
		"tokenizer/a\x7f.json",
		"tokenizer/\u009b31m.json",  // C1 CSI
		"tokenizer/\u0085x.json",    // C1 NEL
		"tokenizer/\u202eevil.json", // bidi override
		"tokenizer/a\u200bb.json",   // zero-width space
		"tokenizer/a\\b.json",
		"tokenizer/a:b.json",
		"tokenizer/x.",
		"text_encoder/\x1b[31mred.safetensors",
		"vae/a\x00.safetensors",
		"tokenizer/" + strings.Repeat("a", 300) + ".json",
	} {
		js, _ := jsonString(name)
		_, err := parseListing("o/m", listingWithExtra(js))
		if err == nil {
			t.Errorf("listing with %q accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(name)) || !printable(err.Error()) {
			t.Errorf("listing with %q: error %q does not quote the name safely", name, err)
		}
	}
	// Raw invalid UTF-8 (encoding/json turns it into U+FFFD) and escaped lone surrogates.
	for _, raw := range []string{"\"tokenizer/\xff\xfe.json\"", `"tokenizer/\ud800.json"`, `"tokenizer/\ufffd.json"`} {
		if _, err := parseListing("o/m", listingWithExtra(raw)); err == nil {
			t.Errorf("listing with %s accepted", raw)
		} else if !printable(err.Error()) {
			t.Errorf("error %q is not printable", err)
		}
	}
	// Traversal and absolute names never become listed files (skipped or refused).
	for _, name := range []string{"../model_index.json", "/model_index.json", "tokenizer/../../x.json",
		"text_encoder/../../../etc/x.safetensors", "tokenizer/..", "//vae/config.json", "vae//config.json"} {
		js, _ := jsonString(name)
		l, err := parseListing("o/m", listingWithExtra(js))
		if err == nil {
			for _, f := range l.Files {
				if f.Path == name {
					t.Errorf("%q listed as a file", name)
				}
			}
		}
	}
	// A malformed commit hash would be echoed too.
	body := []byte(strings.Replace(string(listingJSON("false", strings.Repeat("b", 64))), `"c0ffee"`, `"c0ffee\u001b[2J"`, 1))
	if _, err := parseListing("o/m", body); err == nil {
		t.Error("commit hash with an escape sequence accepted")
	}
}

// Issue 13, item 10, end to end: the file is not written, the error is printable.
func TestDownloadRefusesControlCharacterNames(t *testing.T) {
	files := testRepoFiles(11)
	files["tokenizer/\x1b[31mred\x1b[0m.json"] = &fakeFile{data: []byte(`{}`)}
	newFakeHub(t, testRepo, files)
	dir := t.TempDir()
	_, err := Download(context.Background(), testRepo, dir, fastOptions())
	if err == nil {
		t.Fatal("download with an escape sequence in a file name succeeded")
	}
	if !printable(err.Error()) || !strings.Contains(err.Error(), `\x1b[31mred`) {
		t.Errorf("error %q: want the name quoted with escapes", err)
	}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if strings.ContainsRune(p, 0x1b) {
			t.Errorf("%q written to disk", p)
		}
		return nil
	})
}

// Issue 13, item 5: a listing claiming a 4 PiB file is refused before any range is planned
// or any part file created (it used to die out of memory building the range list).
// 8 TiB fits in an ext4 file, so the sparse part file was created and the range list built.
func TestDownloadRefusesAbsurdFileSize(t *testing.T) {
	for _, size := range []int64{1 << 52, 1 << 43} {
		files := testRepoFiles(12)
		files["transformer/diffusion_pytorch_model.safetensors"].listedSize = size
		newFakeHub(t, testRepo, files)
		dir := t.TempDir()
		_, err := Download(context.Background(), testRepo, dir, fastOptions())
		if err == nil {
			t.Fatalf("download of a %d-byte file succeeded", size)
		}
		msg := err.Error()
		if !strings.Contains(msg, "transformer/diffusion_pytorch_model.safetensors") || !strings.Contains(msg, strconv.FormatInt(size, 10)) {
			t.Errorf("error %q: want the file and its claimed size named", msg)
		}
		noParts(t, dir)
	}
}

// Issue 13, item 5: free space is checked before part files are created or truncated.
func TestDownloadChecksFreeSpaceBeforeCreatingParts(t *testing.T) {
	dir := t.TempDir()
	free, ok := diskFree(dir)
	if !ok {
		t.Skip("free space unknown on this platform")
	}
	size := int64(free) + 1<<30
	if size > 200<<30 {
		t.Skipf("%d bytes free: too much to exceed with a plausible file", free)
	}
	files := testRepoFiles(13)
	files["transformer/diffusion_pytorch_model.safetensors"].listedSize = size
	newFakeHub(t, testRepo, files)
	_, err := Download(context.Background(), testRepo, dir, fastOptions())
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("error %v, want ErrDiskFull", err)
	}
	if !strings.Contains(err.Error(), "transformer/diffusion_pytorch_model.safetensors") {
		t.Errorf("error %q does not name the largest file", err)
	}
	noParts(t, dir)
}

// noParts fails if dir holds any part file.
func noParts(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, partSuffix) {
			st, _ := os.Stat(p)
			t.Errorf("part file %s (%d bytes) created", p, st.Size())
		}
		return nil
	})
}

func jsonString(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

func TestParsePartStateRejectsGarbage(t *testing.T) {
	good := `{"version": 1, "path": "vae/x.safetensors", "size": 100, "sha256": "` + strings.Repeat("a", 64) + `", "etag": "\"e\"", "done": [[0, 10], [20, 30]]}`
	s, err := parsePartState([]byte(good))
	if err != nil || s.doneBytes() != 20 {
		t.Fatalf("good state: %+v, %v", s, err)
	}
	for _, bad := range []string{
		``, `null`, `[]`, `{`, `{"version": 2, "path": "a", "size": 1}`,
		`{"version": 1, "path": "", "size": 1}`,
		`{"version": 1, "path": "../a", "size": 1}`,
		`{"version": 1, "path": "a\u001b[2J", "size": 1}`,
		`{"version": 1, "path": "a\u0000", "size": 1}`,
		`{"version": 1, "path": "a", "size": -1}`,
		`{"version": 1, "path": "a", "size": 4503599627370496}`,
		`{"version": 1, "path": "a", "size": 10, "sha256": "zz"}`,
		`{"version": 1, "path": "a", "size": 10, "blob_id": "abc"}`,
		`{"version": 1, "path": "a", "size": 10, "etag": "\u001b]0;x\u0007"}`,
		`{"version": 1, "path": "a", "size": 10, "done": [[5, 2]]}`,
		`{"version": 1, "path": "a", "size": 10, "done": [[0, 5], [4, 8]]}`,
		`{"version": 1, "path": "a", "size": 10, "done": [[0, 11]]}`,
		`{"version": 1, "path": "a", "size": 10, "done": [[-1, 2]]}`,
		`{"version": 1, "path": "a", "size": 10, "done": [[1]]}`,
		`{"version": 1, "path": "a", "size": 10, "done": "x"}`,
		`{"version": 1, "path": "a", "size": 100000, "done": [` + strings.Repeat(`[1, 2],`, maxStateRanges) + `[3, 4]]}`,
	} {
		if s, err := parsePartState([]byte(bad)); err == nil {
			t.Errorf("accepted %.80s as %+v", bad, s)
		} else if !printable(err.Error()) {
			t.Errorf("error %q is not printable", err)
		}
	}
}

// Range planning takes memory per hole, not per chunk: the largest file in 1-byte requests.
func TestRangePlanningIsBounded(t *testing.T) {
	s := newPartState(RemoteFile{Path: "a", Size: maxFileBytes})
	s.add(10, 20)
	var n int64
	for _, g := range s.gaps() {
		n += job{kind: jobRange, lo: g[0], hi: g[1]}.count(1)
	}
	if len(s.gaps()) != 2 || n != maxFileBytes-10 {
		t.Fatalf("%d gaps, %d requests", len(s.gaps()), n)
	}
	// Huge chunks do not overflow.
	j := job{kind: jobRange, lo: 5, hi: maxFileBytes}
	var got []job
	for r := range j.requests(1<<63 - 1) {
		got = append(got, r)
	}
	if len(got) != 1 || got[0].lo != 5 || got[0].hi != maxFileBytes || j.count(1<<63-1) != 1 {
		t.Fatalf("requests %+v", got)
	}
}

// A manifest naming files outside the folder or with control characters is refused.
func TestParseManifestRejectsUnsafeNames(t *testing.T) {
	for _, bad := range []string{`{"version": 1, "files": [{"path": "../../etc/passwd", "size": 1}]}`,
		`{"version": 1, "files": [{"path": "vae/\u001b[2J", "size": 1}]}`,
		`{"version": 1, "files": [{"path": "vae/x", "size": 4503599627370496}]}`, `{"version": 7}`, `x`} {
		if _, err := parseManifest([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if _, err := parseManifest([]byte(`{"version": 1, "repo": "o/m", "files": [{"path": "vae/config.json", "size": 3}]}`)); err != nil {
		t.Error(err)
	}
}

// Issue 23, item 4: a symlinked subfolder in the target folder is refused, and nothing is
// written through it (the listing's files used to land in the link's target).
func TestDownloadRefusesSymlinkedSubfolder(t *testing.T) {
	newFakeHub(t, testRepo, testRepoFiles(13))
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "tokenizer")); err != nil {
		t.Skip(err)
	}
	_, err := Download(context.Background(), testRepo, dir, fastOptions())
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("download through a symlinked subfolder: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("%d files written outside the folder", len(entries))
	}
}
