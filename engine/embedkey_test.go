package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/weights/golden"
)

// sameSizeCopy replaces path by a copy with one byte changed at off, the same size and the
// old mtime, as cp -p, rsync -a or tar leave a different file of the same length; inPlace
// rewrites the file itself instead of renaming a new one over it.
func sameSizeCopy(t *testing.T, path string, off int, inPlace bool) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[off] ^= 1
	target := path
	if !inPlace {
		target = path + ".new"
	}
	if err := os.WriteFile(target, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(target, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if !inPlace {
		if err := os.Rename(target, path); err != nil {
			t.Fatal(err)
		}
	}
	if now, _ := os.Stat(path); now.Size() != st.Size() || !now.ModTime().Equal(st.ModTime()) {
		t.Fatal("the copy differs in size or mtime")
	}
}

// TestEmbedKeyFollowsContent: the embedding cache's key changes when tokenizer.json is
// replaced, and when a text encoder file is replaced by a same-size, same-mtime file of
// other content (issue 30 item 11: both reused stale embeddings); it stays while nothing
// changes.
func TestEmbedKeyFollowsContent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	if err := os.CopyFS(dir, os.DirFS(golden.TinyModel(t))); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	info := ModelInfo{Dir: dir}
	key := embedKey(cache, info, "cpu")
	if again := embedKey(cache, info, "cpu"); again != key {
		t.Fatal("the key changed with nothing changed")
	}
	if _, err := os.Stat(filepath.Join(cache, fpFile)); err != nil {
		t.Errorf("no fingerprint records: %v", err)
	}
	steps := []struct {
		name    string
		path    string
		inPlace bool
	}{
		{"tokenizer.json replaced", filepath.Join(dir, "tokenizer", "tokenizer.json"), false},
		{"encoder copied over (cp -p)", filepath.Join(dir, "text_encoder", "model.safetensors"), false},
		{"encoder rewritten in place, mtime kept", filepath.Join(dir, "text_encoder", "model.safetensors"), true},
	}
	for _, s := range steps {
		st, _ := os.Stat(s.path)
		sameSizeCopy(t, s.path, int(st.Size()/2), s.inPlace)
		next := embedKey(cache, info, "cpu")
		if next == key {
			t.Errorf("%s: same key", s.name)
		}
		key = next
	}
}

// TestFingerprintSamplesLargeFiles: a file too large to hash whole is fingerprinted by its
// head, spread blocks and tail: a change in any of them changes it.
func TestFingerprintSamplesLargeFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.safetensors")
	raw := bytes.Repeat([]byte{7}, fpWhole+5*fpBlock)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := fingerprint(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int{10, fpHead + 1, len(raw) - 1} {
		sameSizeCopy(t, path, off, true)
		sum, err := fingerprint(path)
		if err != nil || sum == base {
			t.Errorf("byte %d changed: same fingerprint (%v)", off, err)
		}
		sameSizeCopy(t, path, off, true) // back
	}
}
