package weights

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"kleinbild/internal/safefile"
)

// Checkpoint is a set of safetensors files read as one: a single file, a sharded checkpoint
// described by a *.safetensors.index.json, or every *.safetensors file of a folder.
type Checkpoint struct {
	Path  string // what was opened
	files []*File
	where map[string]*File
}

// Open opens a checkpoint. path may be a .safetensors file, a .safetensors.index.json file,
// or a folder holding either (an index wins over loose files; hidden files are ignored).
func Open(path string) (*Checkpoint, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open checkpoint: %w", err)
	}
	if !st.IsDir() {
		if strings.HasSuffix(path, ".index.json") {
			return openIndex(path)
		}
		f, err := OpenFile(path)
		if err != nil {
			return nil, err
		}
		return newCheckpoint(path, []*File{f})
	}
	// os.ReadDir rather than filepath.Glob: the folder name may contain glob metacharacters.
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("open checkpoint: %w", err)
	}
	var idx, shards []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		switch {
		case strings.HasSuffix(name, ".safetensors.index.json"):
			idx = append(idx, filepath.Join(path, name))
		case strings.HasSuffix(name, ".safetensors"):
			shards = append(shards, filepath.Join(path, name))
		}
	}
	if len(idx) > 1 {
		return nil, fmt.Errorf("%s: several safetensors index files: %s", path, strings.Join(idx, ", "))
	}
	if len(idx) == 1 {
		return openIndex(idx[0])
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("%s: no .safetensors file or index in this folder", path)
	}
	return openFiles(path, shards) // ReadDir sorts by name
}

// openIndex opens a Hugging Face style sharded checkpoint:
// {"metadata": {...}, "weight_map": {"tensor name": "shard file name", ...}}. Shards must be
// plain file names in the index's folder, and every listed tensor must be in its shard.
func openIndex(indexPath string) (*Checkpoint, error) {
	raw, err := safefile.ReadRegular(indexPath, safefile.MaxIndexBytes)
	if err != nil {
		return nil, fmt.Errorf("read safetensors index: %w", err)
	}
	weightMap, err := parseIndex(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: malformed index: %w", indexPath, err)
	}
	dir := filepath.Dir(indexPath)
	seen := map[string]bool{}
	var shards []string
	for _, e := range weightMap {
		if !validShardName(e.shard) {
			return nil, fmt.Errorf("%s: tensor %q maps to invalid shard name %q (want a file name in the index's folder)", indexPath, e.tensor, e.shard)
		}
		if !seen[e.shard] {
			seen[e.shard] = true
			shards = append(shards, filepath.Join(dir, e.shard))
		}
	}
	sort.Strings(shards)
	c, err := openFiles(indexPath, shards)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", indexPath, err)
	}
	for _, e := range weightMap {
		f := c.where[e.tensor]
		if f == nil {
			c.Close()
			return nil, fmt.Errorf("%s: index lists tensor %q in %s, which does not hold it", indexPath, e.tensor, e.shard)
		}
		if filepath.Base(f.Path) != e.shard {
			c.Close()
			return nil, fmt.Errorf("%s: index lists tensor %q in %s, but it is in %s", indexPath, e.tensor, e.shard, filepath.Base(f.Path))
		}
	}
	return c, nil
}

type indexEntry struct{ tensor, shard string }

// parseIndex extracts the weight_map of an index file, rejecting duplicate tensor names.
func parseIndex(raw []byte) ([]indexEntry, error) {
	fields, err := objectFields(raw)
	if err != nil {
		return nil, err
	}
	var wm json.RawMessage
	for _, fl := range fields {
		if fl.key == "weight_map" {
			wm = fl.val
		}
	}
	if wm == nil || jsonKind(wm) == "null" {
		return nil, errors.New("no weight_map")
	}
	entries, err := objectFields(wm)
	if err != nil {
		return nil, fmt.Errorf("weight_map: %w", err)
	}
	if len(entries) == 0 {
		return nil, errors.New("weight_map is empty")
	}
	out := make([]indexEntry, len(entries))
	for i, e := range entries {
		if k := jsonKind(e.val); k != "a string" {
			return nil, fmt.Errorf("weight_map: tensor %q maps to %s, want a shard file name", e.key, k)
		}
		out[i].tensor = e.key
		if err := json.Unmarshal(e.val, &out[i].shard); err != nil {
			return nil, fmt.Errorf("weight_map: tensor %q: %w", e.key, err)
		}
	}
	return out, nil
}

// validShardName accepts plain file names only: no separators, no "." or "..", nothing
// absolute or otherwise outside the index's folder.
func validShardName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`+"\x00") &&
		filepath.IsLocal(s) && filepath.Base(s) == s
}

func openFiles(path string, paths []string) (*Checkpoint, error) {
	var files []*File
	for _, p := range paths {
		f, err := OpenFile(p)
		if err != nil {
			for _, g := range files {
				g.Close()
			}
			return nil, err
		}
		files = append(files, f)
	}
	return newCheckpoint(path, files)
}

func newCheckpoint(path string, files []*File) (*Checkpoint, error) {
	c := &Checkpoint{Path: path, files: files, where: map[string]*File{}}
	for _, f := range files {
		for _, n := range f.names {
			if g, dup := c.where[n]; dup {
				c.Close()
				return nil, fmt.Errorf("tensor %q is in both %s and %s", n, g.Path, f.Path)
			}
			c.where[n] = f
		}
	}
	return c, nil
}

// Files lists the paths of the files in the checkpoint.
func (c *Checkpoint) Files() []string {
	out := make([]string, len(c.files))
	for i, f := range c.files {
		out[i] = f.Path
	}
	return out
}

// Names lists every tensor name, sorted.
func (c *Checkpoint) Names() []string {
	out := make([]string, 0, len(c.where))
	for n := range c.where {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Has reports whether the checkpoint holds the named tensor.
func (c *Checkpoint) Has(name string) bool { _, ok := c.where[name]; return ok }

// Tensor returns the named tensor; a missing one gives an error listing the files searched.
func (c *Checkpoint) Tensor(name string) (*Tensor, error) {
	if f, ok := c.where[name]; ok {
		return f.Tensor(name)
	}
	return nil, fmt.Errorf("%w: %q not in %s", ErrNotFound, name, strings.Join(c.Files(), ", "))
}

// TensorShape returns the named tensor after checking its shape.
func (c *Checkpoint) TensorShape(name string, shape ...int) (*Tensor, error) {
	t, err := c.Tensor(name)
	if err != nil {
		return nil, err
	}
	if err := t.CheckShape(shape...); err != nil {
		return nil, err
	}
	return t, nil
}

// Release asks the kernel to drop the mapped pages of every file (they are re-read from disk
// if used again, so tensors stay valid). Use it after a model is no longer needed, e.g. the
// text encoder after encoding. It is advisory: failures are ignored.
func (c *Checkpoint) Release() {
	for _, f := range c.files {
		_ = f.release()
	}
}

// MappedBytes is the total size of the mapped files.
func (c *Checkpoint) MappedBytes() int64 {
	var n int64
	for _, f := range c.files {
		n += int64(len(f.data))
	}
	return n
}

// Close unmaps every file.
func (c *Checkpoint) Close() error {
	var errs []error
	for _, f := range c.files {
		if err := f.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// TensorSpec is the name and shape of one tensor a model checkpoint must hold.
type TensorSpec struct {
	Name  string
	Shape []int
}

// Count returns n such that tensors named prefix+"0.…" through prefix+"(n-1).…" all exist
// and none named prefix+"n.…" does: the number of consecutive numbered blocks of a stack
// (e.g. Count("model.layers.")). Loaders compare it with their config before allocating
// anything per block.
func (c *Checkpoint) Count(prefix string) int {
	present := map[int]bool{}
	for name := range c.where {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		digits, _, ok := strings.Cut(rest, ".")
		if !ok || digits == "" || len(digits) > 9 || (len(digits) > 1 && digits[0] == '0') {
			continue
		}
		i := 0
		for _, r := range digits {
			if r < '0' || r > '9' {
				i = -1
				break
			}
			i = 10*i + int(r-'0')
		}
		if i >= 0 {
			present[i] = true
		}
	}
	n := 0
	for present[n] {
		n++
	}
	return n
}
