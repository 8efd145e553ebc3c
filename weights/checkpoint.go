package weights

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Checkpoint is a set of safetensors files read as one: a single file, a sharded checkpoint
// described by a *.safetensors.index.json, or every *.safetensors file of a folder.
type Checkpoint struct {
	Path  string // what was opened
	files []*File
	where map[string]*File
}

// Open opens a checkpoint. path may be a .safetensors file, a .safetensors.index.json file,
// or a folder holding either (an index wins over loose files).
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
	idx, _ := filepath.Glob(filepath.Join(path, "*.safetensors.index.json"))
	if len(idx) > 1 {
		return nil, fmt.Errorf("%s: several safetensors index files: %s", path, strings.Join(idx, ", "))
	}
	if len(idx) == 1 {
		return openIndex(idx[0])
	}
	shards, _ := filepath.Glob(filepath.Join(path, "*.safetensors"))
	if len(shards) == 0 {
		return nil, fmt.Errorf("%s: no .safetensors file or index in this folder", path)
	}
	sort.Strings(shards)
	return openFiles(path, shards)
}

func openIndex(indexPath string) (*Checkpoint, error) {
	raw, err := os.ReadFile(indexPath)
	if err != nil {
		return nil, fmt.Errorf("read safetensors index: %w", err)
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("%s: malformed index JSON: %w", indexPath, err)
	}
	if len(idx.WeightMap) == 0 {
		return nil, fmt.Errorf("%s: index has no weight_map entries", indexPath)
	}
	dir := filepath.Dir(indexPath)
	seen := map[string]bool{}
	var shards []string
	for name, shard := range idx.WeightMap {
		if shard == "" || filepath.IsAbs(shard) || strings.Contains(shard, "..") || strings.ContainsAny(shard, `/\`) {
			return nil, fmt.Errorf("%s: tensor %q maps to invalid shard name %q", indexPath, name, shard)
		}
		if !seen[shard] {
			seen[shard] = true
			shards = append(shards, filepath.Join(dir, shard))
		}
	}
	sort.Strings(shards)
	c, err := openFiles(indexPath, shards)
	if err != nil {
		return nil, err
	}
	for name, shard := range idx.WeightMap {
		f := c.where[name]
		if f == nil {
			c.Close()
			return nil, fmt.Errorf("%s: index lists tensor %q in %s, which does not hold it", indexPath, name, shard)
		}
		if filepath.Base(f.Path) != shard {
			c.Close()
			return nil, fmt.Errorf("%s: index lists tensor %q in %s, but it is in %s", indexPath, name, shard, filepath.Base(f.Path))
		}
	}
	return c, nil
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
		return f.tensors[name], nil
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
// if used again). Use it after a model is no longer needed, e.g. the text encoder after encoding.
func (c *Checkpoint) Release() {
	for _, f := range c.files {
		dontNeed(f.data)
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
