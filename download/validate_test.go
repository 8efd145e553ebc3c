package download

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// linkTree recreates src under dst with every file a symlink to the original, so that tests
// can replace single files cheaply.
func linkTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		abs, _ := filepath.Abs(p)
		return os.Symlink(abs, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// replaceFile replaces the symlink dir/rel by a real file with the given content.
func replaceFile(t *testing.T, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	os.Remove(p)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readGolden(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(golden.TinyModel(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func problems(r *Report) string {
	var s []string
	for _, p := range r.Problems {
		s = append(s, p.String())
	}
	return strings.Join(s, "\n")
}

func TestValidateGoodFolder(t *testing.T) {
	r, err := Validate(context.Background(), golden.TinyModel(t), ValidateOptions{Backend: backends.Default(), Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Err() != nil {
		t.Fatalf("problems in the golden model:\n%s", problems(r))
	}
	if r.Files < 8 || r.Info.Name != "custom" || !r.Info.Distilled {
		t.Errorf("report %+v", r)
	}
	if r.HashSource != "" || r.Hashed != 0 {
		t.Errorf("no expected hashes exist, yet HashSource %q Hashed %d", r.HashSource, r.Hashed)
	}
}

// makeCacheSnapshot lays the tiny model out like huggingface_hub's cache: blobs named by
// sha256 (safetensors, stored in LFS) or git blob id (other files), and a snapshot of
// relative symlinks into blobs/.
func makeCacheSnapshot(t *testing.T, cache, repo string) string {
	t.Helper()
	root := filepath.Join(cache, "models--"+strings.ReplaceAll(repo, "/", "--"))
	commit := strings.Repeat("5", 40)
	snap := filepath.Join(root, "snapshots", commit)
	src := golden.TinyModel(t)
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name := gitBlobID(data)
		if strings.HasSuffix(p, ".safetensors") {
			name = sha256Hex(data)
		}
		blob := filepath.Join(root, "blobs", name)
		os.MkdirAll(filepath.Dir(blob), 0o755)
		if err := os.WriteFile(blob, data, 0o644); err != nil {
			return err
		}
		link := filepath.Join(snap, rel)
		os.MkdirAll(filepath.Dir(link), 0o755)
		target, _ := filepath.Rel(filepath.Dir(link), blob)
		return os.Symlink(target, link)
	})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "refs"), 0o755)
	os.WriteFile(filepath.Join(root, "refs", "main"), []byte(commit), 0o644)
	os.MkdirAll(filepath.Join(root, "snapshots", strings.Repeat("4", 40)), 0o755) // an older snapshot
	return snap
}

func TestValidateHuggingFaceCacheSnapshot(t *testing.T) {
	cache := t.TempDir()
	makeCacheSnapshot(t, cache, testRepo)
	snaps := CachedSnapshots(cache, testRepo)
	if len(snaps) != 2 || !strings.HasSuffix(snaps[0], strings.Repeat("5", 40)) {
		t.Fatalf("snapshots %v: want the refs/main one first", snaps)
	}
	if CachedSnapshots(cache, "o/other") != nil {
		t.Error("snapshots of an uncached repository")
	}
	snap := snaps[0]
	var last HashProgress
	r, err := Validate(context.Background(), snap, ValidateOptions{Hash: true, Progress: func(p HashProgress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.HashSource != "cache blob names" || r.Hashed != 10 {
		t.Fatalf("hash source %q, %d hashed, problems:\n%s", r.HashSource, r.Hashed, problems(r))
	}
	if last.TotalBytes == 0 || last.Bytes != last.TotalBytes {
		t.Errorf("last hash progress %+v", last)
	}

	// A blob corrupted in its data (the header still parses): only hashing finds it.
	link := filepath.Join(snap, "vae", "diffusion_pytorch_model.safetensors")
	target, _ := os.Readlink(link)
	blob := filepath.Join(filepath.Dir(link), target)
	data, _ := os.ReadFile(blob)
	data[len(data)-10] ^= 0xff
	os.WriteFile(blob, data, 0o644)
	if r, _ := Validate(context.Background(), snap, ValidateOptions{}); !r.OK() {
		t.Fatalf("structural checks should pass:\n%s", problems(r))
	}
	r, _ = Validate(context.Background(), snap, ValidateOptions{Hash: true})
	if len(r.Problems) != 1 || r.Problems[0].Path != "vae/diffusion_pytorch_model.safetensors" || r.Problems[0].Kind != Mismatch || !strings.Contains(r.Problems[0].Detail, "sha256") {
		t.Errorf("corrupt blob: %s", problems(r))
	}

	// A blob that never finished downloading: the snapshot's link dangles.
	link = filepath.Join(snap, "transformer", "diffusion_pytorch_model.safetensors")
	target, _ = os.Readlink(link)
	os.Remove(filepath.Join(filepath.Dir(link), target))
	r, _ = Validate(context.Background(), snap, ValidateOptions{})
	if len(r.Problems) != 1 || r.Problems[0].Path != "transformer/diffusion_pytorch_model.safetensors" || r.Problems[0].Kind != Missing || !strings.Contains(r.Problems[0].Detail, "dangling symlink") {
		t.Errorf("dangling blob: %s", problems(r))
	}
}

func TestValidateMissingShard(t *testing.T) {
	dir := t.TempDir()
	linkTree(t, golden.TinyModel(t), dir)
	te := filepath.Join(dir, "text_encoder")
	os.Rename(filepath.Join(te, "model.safetensors"), filepath.Join(te, "model-00001-of-00002.safetensors"))
	f, err := weights.OpenFile(filepath.Join(te, "model-00001-of-00002.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	wm := map[string]string{}
	for i, n := range f.Names() {
		wm[n] = "model-00001-of-00002.safetensors"
		if i == 0 {
			wm[n] = "model-00002-of-00002.safetensors"
		}
	}
	f.Close()
	idx, _ := json.Marshal(map[string]any{"metadata": map[string]any{}, "weight_map": wm})
	os.WriteFile(filepath.Join(te, "model.safetensors.index.json"), idx, 0o644)

	r, err := Validate(context.Background(), dir, ValidateOptions{Backend: backends.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 || r.Problems[0] != (Problem{Path: "text_encoder/model-00002-of-00002.safetensors", Kind: Missing}) {
		t.Fatalf("want exactly the missing shard, got:\n%s", problems(r))
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "1 problem: text_encoder/model-00002-of-00002.safetensors: missing") {
		t.Errorf("Err() = %v", err)
	}
}

func TestValidateTruncatedSafetensors(t *testing.T) {
	dir := t.TempDir()
	linkTree(t, golden.TinyModel(t), dir)
	rel := "transformer/diffusion_pytorch_model.safetensors"
	data := readGolden(t, rel)
	replaceFile(t, dir, rel, data[:len(data)*2/3])
	r, err := Validate(context.Background(), dir, ValidateOptions{Backend: backends.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 || r.Problems[0].Path != rel || r.Problems[0].Kind != Corrupt {
		t.Fatalf("want exactly the truncated file, got:\n%s", problems(r))
	}
	t.Logf("reported: %s", r.Problems[0])
	if strings.Contains(r.Problems[0].Detail, dir) {
		t.Errorf("detail repeats the path: %s", r.Problems[0].Detail)
	}

	// A header cut short, and an empty file.
	replaceFile(t, dir, rel, data[:100])
	replaceFile(t, dir, "vae/diffusion_pytorch_model.safetensors", nil)
	r, _ = Validate(context.Background(), dir, ValidateOptions{})
	if len(r.Problems) != 2 || r.Problems[0].Path != rel || r.Problems[1].Path != "vae/diffusion_pytorch_model.safetensors" {
		t.Errorf("got:\n%s", problems(r))
	}
}

func TestValidateJSONAndShapes(t *testing.T) {
	dir := t.TempDir()
	linkTree(t, golden.TinyModel(t), dir)
	sched := readGolden(t, "scheduler/scheduler_config.json")
	replaceFile(t, dir, "scheduler/scheduler_config.json", sched[:len(sched)/2])
	// A config that does not describe the weights: caught only by the deep check.
	cfg := strings.Replace(string(readGolden(t, "transformer/config.json")), `"num_single_layers": 2`, `"num_single_layers": 3`, 1)
	replaceFile(t, dir, "transformer/config.json", []byte(cfg))
	r, err := Validate(context.Background(), dir, ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 || r.Problems[0].Path != "scheduler/scheduler_config.json" || r.Problems[0].Kind != Corrupt {
		t.Fatalf("got:\n%s", problems(r))
	}
	r, _ = Validate(context.Background(), dir, ValidateOptions{Backend: backends.Default()})
	if len(r.Problems) != 2 || r.Problems[1].Path != "transformer/" || !strings.Contains(r.Problems[1].Detail, "num_single_layers") {
		t.Fatalf("got:\n%s", problems(r))
	}
}

func TestValidateAgainstManifestAndListing(t *testing.T) {
	dir := t.TempDir()
	linkTree(t, golden.TinyModel(t), dir)
	// The manifest a download would have written.
	m := &manifest{Version: stateVersion, Repo: testRepo}
	var listing Listing
	filepath.WalkDir(golden.TinyModel(t), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(golden.TinyModel(t), p)
		data, _ := os.ReadFile(p)
		f := RemoteFile{Path: filepath.ToSlash(rel), Size: int64(len(data)), BlobID: gitBlobID(data)}
		if strings.HasSuffix(p, ".safetensors") {
			f = RemoteFile{Path: f.Path, Size: f.Size, SHA256: sha256Hex(data)}
		}
		m.Files = append(m.Files, manifestFile{RemoteFile: f})
		listing.Files = append(listing.Files, f)
		return nil
	})
	// The listing also names a file this folder lacks.
	listing.Files = append(listing.Files, RemoteFile{Path: "tokenizer/vocab.json", Size: 3})
	if err := writeJSON(manifestPath(dir), m); err != nil {
		t.Fatal(err)
	}
	tok := readGolden(t, "tokenizer/tokenizer_config.json")
	tok[len(tok)/2] ^= 0x01 // still valid JSON? not necessarily: the hash check must flag it either way
	replaceFile(t, dir, "tokenizer/tokenizer_config.json", tok)

	r, err := Validate(context.Background(), dir, ValidateOptions{Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.HashSource != "manifest" || r.Hashed != 10 {
		t.Errorf("hash source %q, %d hashed", r.HashSource, r.Hashed)
	}
	found := false
	for _, p := range r.Problems {
		if p.Path == "tokenizer/tokenizer_config.json" && (p.Kind == Mismatch || p.Kind == Corrupt) {
			found = true
		}
		if p.Kind == Mismatch && !strings.Contains(p.Detail, "git blob id") {
			t.Errorf("mismatch detail %q", p.Detail)
		}
	}
	if !found {
		t.Fatalf("changed tokenizer_config.json not reported:\n%s", problems(r))
	}

	r, _ = Validate(context.Background(), dir, ValidateOptions{Hash: true, Expected: &listing})
	if r.HashSource != "listing" || !strings.Contains(problems(r), "tokenizer/vocab.json: missing (listed by the listing)") {
		t.Errorf("against the listing:\n%s", problems(r))
	}
}

func TestValidateErrors(t *testing.T) {
	if _, err := Validate(context.Background(), filepath.Join(t.TempDir(), "nope"), ValidateOptions{}); err == nil {
		t.Error("missing folder: no error")
	}
	empty := t.TempDir()
	r, err := Validate(context.Background(), empty, ValidateOptions{Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 9 || r.Problems[0].Kind != Missing {
		t.Errorf("empty folder:\n%s", problems(r))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	linkTree(t, golden.TinyModel(t), dir)
	if _, err := Validate(ctx, dir, ValidateOptions{Hash: true, Expected: &Listing{Files: []RemoteFile{{Path: "model_index.json", Size: 446, SHA256: strings.Repeat("0", 64)}}}}); err == nil {
		t.Error("cancelled context: no error")
	}
}
