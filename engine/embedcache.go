package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"kleinbild/engine/tokenizer"
	"kleinbild/weights"
)

// embedCache keeps prompt embeddings so a repeated prompt skips the text encoder: the last
// few in memory, and optionally all recent ones on disk (bounded in bytes, oldest evicted).
// Entries are keyed on the text encoder's files and the compute backend (backends differ in
// precision: onednn computes in bf16), checked for shape, finiteness and their checksum when
// read from disk, and handed out as copies.
type embedCache struct {
	dir      string // "" disables the disk tier
	maxBytes int64
	modelKey string
	width    int           // values per token: 3·hidden of the text encoder
	mem      []cachedEmbed // most recent last
}

type cachedEmbed struct {
	prompt string
	emb    []float32
}

const memEmbeds = 4

// DefaultCacheBytes bounds the on-disk embedding cache when Options.CacheBytes is 0.
const DefaultCacheBytes = 1 << 30

// newEmbedCache makes the cache of a model's embeddings [TextTokens, width] as computed on
// the named backend.
func newEmbedCache(dir string, maxBytes int64, info ModelInfo, backend string, width int) *embedCache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &embedCache{dir: dir, maxBytes: maxBytes, modelKey: embedKey(dir, info, backend), width: width}
}

// embedKeyVersion changes when what a cached embedding depends on changes in the code.
const embedKeyVersion = 2

// embedKey is the key of a model's embeddings: it changes when the backend, the chat
// template, the tokenizer's files or the text encoder's files change. With a disk tier
// (dir) each file counts by its content fingerprint (see fingerprints), else by its size
// and mtime (the memory tier lives only as long as the model).
func embedKey(dir string, info ModelInfo, backend string) string {
	fps := loadFingerprints(dir)
	defer fps.save()
	h := sha256.New()
	fmt.Fprintf(h, "embeddings v%d\nbackend %q\ntemplate %q\n", embedKeyVersion, backend, tokenizer.ChatPrompt(""))
	abs, _ := filepath.Abs(info.Dir)
	fmt.Fprintln(h, abs)
	file := func(label, path string) {
		fmt.Fprintf(h, "%s %q ", label, filepath.Base(path))
		if dir != "" {
			sum, err := fps.of(path)
			fmt.Fprintln(h, sum, err != nil)
			return
		}
		if st, err := os.Stat(path); err == nil {
			fmt.Fprintln(h, st.Size(), st.ModTime().UnixNano())
		}
	}
	for _, sub := range []string{"tokenizer", "text_encoder"} {
		files, _ := filepath.Glob(filepath.Join(info.Dir, sub, "*"))
		sort.Strings(files)
		for _, f := range files {
			file(sub, f)
		}
	}
	for _, f := range info.Files { // a text encoder file in place of the folder's
		if f.Component != TextEncoder {
			continue
		}
		abs, _ := filepath.Abs(f.Path)
		fmt.Fprintf(h, "text encoder file %q\n", abs)
		file("text encoder file", f.Path)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// valid reports whether emb has the shape of a prompt embedding and only finite values.
func (c *embedCache) valid(emb []float32) bool {
	return len(emb) == TextTokens*c.width && firstNonFinite(emb) < 0
}

func (c *embedCache) path(prompt string) string {
	h := sha256.Sum256([]byte(c.modelKey + "\x00" + prompt))
	return filepath.Join(c.dir, hex.EncodeToString(h[:16])+".safetensors")
}

// get returns a copy of the prompt's cached embedding. A disk entry of the wrong shape or
// with non-finite values is deleted.
func (c *embedCache) get(prompt string) ([]float32, bool) {
	for i := len(c.mem) - 1; i >= 0; i-- {
		if c.mem[i].prompt == prompt {
			e := c.mem[i]
			c.mem = append(append(c.mem[:i:i], c.mem[i+1:]...), e)
			return slices.Clone(e.emb), true
		}
	}
	if c.dir == "" {
		return nil, false
	}
	p := c.path(prompt)
	emb, ok := c.read(p, prompt)
	if !ok {
		return nil, false
	}
	if !c.valid(emb) {
		os.Remove(p)
		return nil, false
	}
	now := time.Now()
	os.Chtimes(p, now, now)
	c.remember(prompt, emb)
	return slices.Clone(emb), true
}

// read loads the entry at p if it is the prompt's, of this model and shaped [TextTokens, width].
func (c *embedCache) read(p, prompt string) ([]float32, bool) {
	f, err := weights.OpenFile(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if f.Metadata["prompt"] != prompt || f.Metadata["model"] != c.modelKey {
		return nil, false
	}
	t, err := f.Tensor("prompt_embeds")
	if err != nil || t.DType != weights.F32 || t.CheckShape(TextTokens, c.width) != nil {
		os.Remove(p) // ours by its name and metadata, but unusable
		return nil, false
	}
	emb := make([]float32, t.Numel())
	// A cache file cut short by another program is a miss, not a crash.
	if weights.Guard(p, func() error { return t.ReadFloat32(emb) }) != nil {
		return nil, false
	}
	if f.Metadata["sha256"] != embedSum(emb) {
		os.Remove(p) // a flipped bit, or an entry from before checksums: encode again
		return nil, false
	}
	return emb, true
}

// embedSum is the checksum a disk entry keeps of its values: SHA-256 of their little-endian
// bytes, in hex.
func embedSum(emb []float32) string {
	h := sha256.New()
	var b [4]byte
	for _, v := range emb {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// remember keeps emb (owned by the cache from now on) in the memory tier.
func (c *embedCache) remember(prompt string, emb []float32) {
	c.mem = append(c.mem, cachedEmbed{prompt, emb})
	if len(c.mem) > memEmbeds {
		c.mem = c.mem[len(c.mem)-memEmbeds:]
	}
}

// put stores a copy of an embedding (one of another shape or with non-finite values is not
// stored); disk errors only cost a future re-encode, so they are ignored.
func (c *embedCache) put(prompt string, emb []float32) {
	if !c.valid(emb) {
		return
	}
	emb = slices.Clone(emb)
	c.remember(prompt, emb)
	if c.dir == "" || int64(len(emb))*4 > c.maxBytes {
		return
	}
	if os.MkdirAll(c.dir, 0o755) != nil {
		return
	}
	err := weights.WriteOwnedFile(c.path(prompt), []weights.OutTensor{{Name: "prompt_embeds", Shape: []int{TextTokens, c.width}, F32: emb}},
		map[string]string{"prompt": prompt, "model": c.modelKey, "sha256": embedSum(emb)})
	if err == nil {
		c.evict()
	}
}

// evict deletes the least recently used files until the folder fits in maxBytes.
func (c *embedCache) evict() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".safetensors") {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, file{filepath.Join(c.dir, e.Name()), info.Size(), info.ModTime()})
			total += info.Size()
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].used.Before(files[j].used) })
	for _, f := range files {
		if total <= c.maxBytes {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}
