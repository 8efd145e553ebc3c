package download

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/engine"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// assembledHub serves the three repositories of the assembled Q8_0 klein-4B download (the
// names of assembledTable) from the fake Hub, with the tiny golden model's files as content:
// the Q8_0-mix GGUF transformer, the Q8_0 GGUF Qwen3 text encoder, and the tiny diffusers
// folder as the official repository. It returns the hub, the variant and, per local path of
// the finished folder, the expected content.
func assembledHub(t *testing.T) (*fakeHub, Variant, map[string][]byte) {
	t.Helper()
	v, err := AssembledVariant(Variants()[0], "Q8_0")
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel ...string) []byte {
		b, err := os.ReadFile(golden.Path(t, rel...))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	official := map[string]*fakeFile{
		"README.md":  {data: []byte("# klein")},
		"flux-2.bin": {data: []byte("single file, never fetched"), lfs: true},
	}
	want := map[string][]byte{}
	tiny := filepath.Join("model", "tiny-flux2-klein")
	for _, rel := range []string{"model_index.json", "scheduler/scheduler_config.json", "tokenizer/tokenizer.json",
		"tokenizer/tokenizer_config.json", "vae/config.json", "vae/diffusion_pytorch_model.safetensors",
		"transformer/config.json", "transformer/diffusion_pytorch_model.safetensors", "text_encoder/config.json"} {
		f := &fakeFile{data: read(tiny, rel), lfs: strings.HasSuffix(rel, ".safetensors") || rel == "tokenizer/tokenizer.json"}
		official[rel] = f
		if !strings.HasPrefix(rel, "transformer/") && !strings.HasPrefix(rel, "text_encoder/") {
			want[rel] = f.data
		}
	}
	// The official text encoder (10 MB) is never fetched: a stand-in of its name keeps the
	// test small.
	official["text_encoder/model.safetensors"] = &fakeFile{data: bytes.Repeat([]byte{7}, 1000), lfs: true}
	h := newFakeHub(t, v.Repo, official)
	gguf := map[string][]byte{
		"transformer":  read("gguf", "model", "comfyui", "diffusion_models", "flux-2-klein-tiny-Q8_0-mix.gguf"),
		"text_encoder": read("gguf", "model", "comfyui", "text_encoders", "qwen3-tiny-Q8_0.gguf"),
	}
	for _, pt := range v.Parts[1:] {
		name := pt.Files[0]
		other := strings.Replace(name, "Q8_0", "Q4_K_M", 1) // another quantization: not fetched
		h.addRepo(pt.Repo, map[string]*fakeFile{
			name:        {data: gguf[pt.Dir], lfs: true},
			other:       {data: []byte("GGUF another quantization"), lfs: true},
			"README.md": {data: []byte("# GGUF")},
		})
		want[pt.Dir+"/"+name] = gguf[pt.Dir]
	}
	return h, v, want
}

// assembledOptions are fastOptions with 1 MiB ranges: the fake Hub hashes a whole file for
// each request's ETag, and the served files here are up to 5 MB.
func assembledOptions() Options {
	o := fastOptions()
	o.ChunkBytes = 1 << 20
	return o
}

// checkAssembled fails unless dir holds exactly want's files (besides download state) and
// opens with engine.OpenModelSource as the GGUF model with the folder's VAE and tokenizer.
func checkAssembled(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	for rel, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes (%v), want %d", rel, len(got), err, len(data))
		}
	}
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if !e.IsDir() && want[filepath.ToSlash(rel)] == nil {
			t.Errorf("%s was downloaded but is not part of the assembled model", rel)
		}
		return nil
	})
	src, err := engine.OpenModelSource(dir, engine.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	info := src.Info()
	if !info.OK() || len(info.Files) != 2 || !info.Distilled || src.Where(engine.VAE) != filepath.Join(dir, "vae") {
		t.Fatalf("engine reads %+v", info)
	}
	if _, err := engine.OpenSource(src, backends.Default(), engine.Options{}); err != nil {
		t.Fatalf("engine.OpenSource: %v", err)
	}
}

// TestDownloadAssembled: the assembled download fetches exactly the chosen GGUF files and
// the official VAE, tokenizer, model_index.json and scheduler settings into a folder that
// engine.Source opens and Validate passes (every file hashed against the manifests), with
// progress counted over all three repositories.
func TestDownloadAssembled(t *testing.T) {
	h, v, want := assembledHub(t)
	var total int64
	for _, data := range want {
		total += int64(len(data))
	}
	dir := filepath.Join(t.TempDir(), "klein-4b-q8_0")
	var log progressLog
	o := assembledOptions()
	o.Progress = log.fn
	res, err := DownloadVariant(context.Background(), v, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	checkAssembled(t, dir, want)
	if res.Files != len(want) || res.Bytes != total || res.Fetched != total || res.Reused != 0 {
		t.Errorf("result %+v; want %d files, %d bytes", res, len(want), total)
	}
	last, prev := log.last(), int64(0)
	if last.Phase != PhaseDone || last.Bytes != total || last.TotalBytes != total || log.overlap {
		t.Errorf("last progress %+v; want done at %d bytes", last, total)
	}
	for _, p := range log.all {
		if p.Phase == PhaseChecking {
			continue
		}
		if p.Bytes < prev || (p.TotalBytes > 0 && p.TotalBytes != total) || (p.Phase == PhaseDone && p != last) {
			t.Fatalf("progress goes back or restarts per repository: %+v after %d bytes", p, prev)
		}
		prev = p.Bytes
	}
	_, _, requested := h.stats()
	for k := range requested {
		if strings.Contains(k, "Q4_K_M") || strings.HasPrefix(k, "transformer/") || strings.HasPrefix(k, "text_encoder/") || path.Base(k) == "README.md" {
			t.Errorf("%s was requested", k)
		}
	}

	rep, err := Validate(context.Background(), dir, ValidateOptions{Hash: true, Backend: backends.Default()})
	if err != nil || !rep.OK() || rep.HashSource != "manifest" || rep.Hashed != len(want) {
		t.Fatalf("validate: %v %+v", err, rep)
	}

	// A second run finds everything verified and fetches nothing.
	served := h.served.Load()
	res, err = DownloadVariant(context.Background(), v, dir, assembledOptions())
	if err != nil || res.Fetched != 0 || res.Reused != total || h.served.Load() != served {
		t.Errorf("second run: %v, %+v", err, res)
	}
}

// TestDownloadAssembledResumes cancels the assembled download inside the transformer GGUF
// (the second repository) and runs it again: the official files stay verified, the partial
// GGUF continues where it stopped, and the folder is complete.
func TestDownloadAssembledResumes(t *testing.T) {
	h, v, want := assembledHub(t)
	var official, total int64
	for rel, data := range want {
		total += int64(len(data))
		if !strings.HasSuffix(rel, ".gguf") {
			official += int64(len(data))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.onServe = func(n int64) {
		if n > official+200_000 { // the transformer GGUF is 462 kB
			cancel()
		}
	}
	dir := t.TempDir()
	o := fastOptions()
	o.Connections, o.ChunkBytes = 1, 128<<10
	if _, err := DownloadVariant(ctx, v, dir, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v", err)
	}
	tr := v.Parts[1]
	st, err := readPartState(partStatePath(filepath.Join(dir, tr.Dir), tr.Files[0]))
	if err != nil || st.doneBytes() < 100_000 {
		t.Fatalf("no partial transformer kept: %v %+v", err, st)
	}
	first := h.served.Load()
	h.mu.Lock()
	h.onServe = nil
	h.mu.Unlock()
	res, err := DownloadVariant(context.Background(), v, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	checkAssembled(t, dir, want)
	second := h.served.Load() - first
	if res.Reused < official+st.doneBytes() || second > total-official-st.doneBytes() {
		t.Errorf("second run reused %d and fetched %d of %d; %d official and %d transformer bytes were there", res.Reused, second, total, official, st.doneBytes())
	}
}

// TestDownloadAssembledVerifies: a GGUF whose served bytes differ from the listing's sha256
// never lands under its name; a byte flipped in a finished folder's GGUF (size and time
// kept) is found by Validate's hashes and by the next download's first/last-MiB sample,
// which fetches the file again; a file name the repository lacks fails before any write.
func TestDownloadAssembledVerifies(t *testing.T) {
	h, v, want := assembledHub(t)
	te := v.Parts[2]
	f := h.extra[te.Repo][te.Files[0]]
	f.served = bytes.Clone(f.data)
	f.served[len(f.served)/2] ^= 1
	dir := t.TempDir()
	if _, err := DownloadVariant(context.Background(), v, dir, assembledOptions()); !errors.Is(err, ErrChecksum) {
		t.Fatalf("corrupt text encoder: %v", err)
	}
	local := filepath.Join(dir, te.Dir, te.Files[0])
	if _, err := os.Stat(local); err == nil {
		t.Fatal("corrupt GGUF placed under its name")
	}
	h.mu.Lock()
	f.served = nil
	h.mu.Unlock()
	if _, err := DownloadVariant(context.Background(), v, dir, assembledOptions()); err != nil {
		t.Fatal(err)
	}

	// Flip one byte in place, keeping the size and modification time.
	st, err := os.Stat(local)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(local)
	data[len(data)-100] ^= 0x40
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(local, time.Time{}, st.ModTime()); err != nil {
		t.Fatal(err)
	}
	rep, err := Validate(context.Background(), dir, ValidateOptions{Hash: true})
	if err != nil || len(rep.Problems) != 1 || rep.Problems[0].Path != te.Dir+"/"+te.Files[0] || rep.Problems[0].Kind != Mismatch {
		t.Fatalf("validate after a flipped byte: %v %+v", err, rep)
	}
	served := h.served.Load()
	if _, err := DownloadVariant(context.Background(), v, dir, assembledOptions()); err != nil {
		t.Fatal(err)
	}
	if got := h.served.Load() - served; got != int64(len(data)) {
		t.Errorf("fetched %d bytes again; want the one damaged file (%d)", got, len(data))
	}
	checkAssembled(t, dir, want)

	// A truncated GGUF (not from a download) is reported by Validate under its own name.
	if err := os.WriteFile(local, data[:len(data)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Validate(context.Background(), dir, ValidateOptions{})
	if err != nil || rep.OK() || rep.Problems[0].Path != te.Dir+"/"+te.Files[0] || rep.Problems[0].Kind != Corrupt {
		t.Fatalf("validate a truncated GGUF: %v %+v", err, rep)
	}

	// A file name the GGUF repository lacks: not found, before anything is written.
	h.mu.Lock()
	delete(h.extra[te.Repo], te.Files[0])
	h.mu.Unlock()
	empty := t.TempDir()
	if _, err := DownloadVariant(context.Background(), v, empty, assembledOptions()); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), te.Files[0]) {
		t.Fatalf("missing GGUF: %v", err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("a failed listing wrote %d entries", len(entries))
	}
}

// TestAssembledChoices checks the offered downloads: each assembled model next to its
// full one, smaller, with a quality line, and --quant's errors.
func TestAssembledChoices(t *testing.T) {
	cs := Choices()
	if len(cs) != len(Variants())+len(Assembled()) || cs[0].ID != "klein-4b" || cs[1].Quant != "Q8_0" || cs[2].Quant != "Q4_K_M" {
		t.Fatalf("choices: %+v", cs)
	}
	for _, a := range Assembled() {
		if a.Quality == "" || a.ApproxBytes >= cs[0].ApproxBytes || len(a.Parts) != 3 || a.Parts[0].Repo != cs[0].Repo {
			t.Errorf("%s: %+v", a.ID, a)
		}
	}
	if cs[2].ApproxBytes >= cs[1].ApproxBytes {
		t.Error("Q4_K_M is not smaller than Q8_0")
	}
	if a, err := AssembledVariant(cs[0], "q4_k_m"); err != nil || a.ID != "klein-4b-q4_k_m" {
		t.Errorf("q4_k_m: %v %+v", err, a)
	}
	if _, err := AssembledVariant(cs[0], "Q2_K"); err == nil || !strings.Contains(err.Error(), "Q8_0, Q4_K_M") {
		t.Errorf("Q2_K: %v", err)
	}
	nine, _ := VariantByID("klein-9b")
	if _, err := AssembledVariant(nine, "Q8_0"); err == nil || !strings.Contains(err.Error(), "klein-4b") {
		t.Errorf("klein-9b: %v", err)
	}
}
