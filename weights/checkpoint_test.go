package weights_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// outTensors copies the named tensors of c into OutTensors (BF16 kept as BF16) and returns
// their total size in bytes.
func outTensors(t *testing.T, c *weights.Checkpoint, names []string) ([]weights.OutTensor, int) {
	t.Helper()
	var out []weights.OutTensor
	size := 0
	for _, n := range names {
		tn, err := c.Tensor(n)
		if err != nil {
			t.Fatal(err)
		}
		o := weights.OutTensor{Name: n, Shape: tn.Shape}
		switch tn.DType {
		case weights.BF16:
			v, _ := tn.BF16()
			o.BF16 = slices.Clone(v)
		case weights.I64:
			o.I64, _ = tn.Int64()
		default:
			t.Fatalf("%s: unexpected dtype %s", n, tn.DType)
		}
		size += len(tn.Bytes())
		out = append(out, o)
	}
	return out, size
}

type shardedFixture struct {
	dir, index string
	src        *weights.Checkpoint
	shardOf    map[string]string
	totalSize  int
}

// writeSharded splits the tiny transformer into two shards in a temp folder and writes an
// HF-style index next to them.
func writeSharded(t *testing.T) shardedFixture {
	t.Helper()
	src, err := weights.Open(filepath.Join(golden.TinyModel(t), "transformer"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	names := src.Names()
	half := len(names) / 2
	fx := shardedFixture{dir: t.TempDir(), src: src, shardOf: map[string]string{}}
	for i, part := range [][]string{names[:half], names[half:]} {
		shard := []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}[i]
		ts, size := outTensors(t, src, part)
		fx.totalSize += size
		if err := weights.WriteFile(filepath.Join(fx.dir, shard), ts, map[string]string{"format": "pt"}); err != nil {
			t.Fatal(err)
		}
		for _, n := range part {
			fx.shardOf[n] = shard
		}
	}
	fx.index = filepath.Join(fx.dir, "model.safetensors.index.json")
	writeIndex(t, fx.index, fx.totalSize, fx.shardOf)
	return fx
}

func writeIndex(t *testing.T, path string, totalSize int, weightMap map[string]string) {
	t.Helper()
	raw, err := json.MarshalIndent(map[string]any{
		"metadata":   map[string]any{"total_size": totalSize},
		"weight_map": weightMap,
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShardedIndex opens a two-shard checkpoint through its folder and through its index and
// checks that every tensor reads back byte-identical to the original.
func TestShardedIndex(t *testing.T) {
	fx := writeSharded(t)
	// A loose file in the folder must not be picked up when there is an index.
	if err := os.WriteFile(filepath.Join(fx.dir, "stray.safetensors"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fx.dir, fx.index} {
		c, err := weights.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		files := c.Files()
		if len(files) != 2 || filepath.Base(files[0]) != "model-00001-of-00002.safetensors" {
			t.Errorf("Open(%s): files %v", path, files)
		}
		if !slices.Equal(c.Names(), fx.src.Names()) {
			t.Errorf("Open(%s): names differ from the source", path)
		}
		var mapped int64
		for _, n := range c.Names() {
			got, err := c.Tensor(n)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := fx.src.Tensor(n)
			if !bytes.Equal(got.Bytes(), want.Bytes()) || !slices.Equal(got.Shape, want.Shape) || got.DType != want.DType {
				t.Errorf("Open(%s): tensor %q differs from the source", path, n)
			}
			if filepath.Base(got.File) != fx.shardOf[n] {
				t.Errorf("Open(%s): tensor %q in %s, want %s", path, n, got.File, fx.shardOf[n])
			}
		}
		mapped = c.MappedBytes()
		if mapped <= int64(fx.totalSize) {
			t.Errorf("MappedBytes %d <= tensor bytes %d", mapped, fx.totalSize)
		}
		if _, err := c.TensorShape("x_embedder.weight", 64, 128); err != nil {
			t.Error(err)
		}
		if _, err := c.TensorShape("x_embedder.weight", 128, 64); err == nil || !strings.Contains(err.Error(), "x_embedder.weight") {
			t.Errorf("wrong shape accepted or unnamed: %v", err)
		}
		if err := c.Close(); err != nil {
			t.Error(err)
		}
		if _, err := c.Tensor("x_embedder.weight"); err == nil {
			t.Error("Tensor after Close succeeded")
		}
	}
}

// TestIndexErrors checks that broken indexes give errors naming the index and the problem.
func TestIndexErrors(t *testing.T) {
	fx := writeSharded(t)
	shard1, shard2 := "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
	moved := func(name, shard string) map[string]string {
		m := maps.Clone(fx.shardOf)
		m[name] = shard
		return m
	}
	first := fx.src.Names()[0] // lives in shard 1
	cases := []struct {
		name string
		raw  string            // index text; empty means use weightMap
		wm   map[string]string // weight map to write
		want []string          // substrings of the error
	}{
		{name: "shard missing", wm: moved(first, "model-00003-of-00003.safetensors"), want: []string{"model-00003-of-00003.safetensors", syscall.ENOENT.Error()}}, // "no such file or directory" on Linux
		{name: "wrong shard", wm: moved(first, shard2), want: []string{first, shard2, "but it is in " + shard1}},
		{name: "not in any shard", wm: moved("no.such.tensor", shard1), want: []string{"no.such.tensor", "does not hold it"}},
		{name: "path traversal", wm: moved(first, "../"+shard1), want: []string{"invalid shard name", "../"}},
		{name: "subfolder", wm: moved(first, "sub/"+shard1), want: []string{"invalid shard name"}},
		{name: "absolute", wm: moved(first, filepath.Join(fx.dir, shard1)), want: []string{"invalid shard name"}},
		{name: "dotdot", wm: moved(first, ".."), want: []string{"invalid shard name"}},
		{name: "empty shard", wm: moved(first, ""), want: []string{"invalid shard name"}},
		{name: "malformed JSON", raw: `{"weight_map": {"a": "b.safetensors",}}`, want: []string{"malformed index"}},
		{name: "truncated JSON", raw: `{"weight_map": {"a": "b.safe`, want: []string{"malformed index", "unexpected EOF"}},
		{name: "not an object", raw: `["weight_map"]`, want: []string{"malformed index", "object"}},
		{name: "no weight_map", raw: `{"metadata": {"total_size": 1}}`, want: []string{"no weight_map"}},
		{name: "null weight_map", raw: `{"weight_map": null}`, want: []string{"no weight_map"}},
		{name: "empty weight_map", raw: `{"weight_map": {}}`, want: []string{"weight_map is empty"}},
		{name: "non-string shard", raw: `{"weight_map": {"a": 3}}`, want: []string{`"a"`, "number"}},
		{name: "duplicate tensor", raw: `{"weight_map": {"a": "` + shard1 + `", "a": "` + shard2 + `"}}`, want: []string{"duplicate key", `"a"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.raw != "" {
				if err := os.WriteFile(fx.index, []byte(tc.raw), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				writeIndex(t, fx.index, fx.totalSize, tc.wm)
			}
			for _, path := range []string{fx.index, fx.dir} {
				c, err := weights.Open(path)
				if err == nil {
					c.Close()
					t.Fatalf("Open(%s) succeeded", path)
				}
				for _, w := range append([]string{fx.index}, tc.want...) {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Open(%s): error %q lacks %q", path, err, w)
					}
				}
			}
		})
	}

	t.Run("corrupt shard", func(t *testing.T) {
		writeIndex(t, fx.index, fx.totalSize, fx.shardOf)
		p := filepath.Join(fx.dir, shard2)
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, raw[:len(raw)-1], 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(p, raw, 0o644)
		_, err = weights.Open(fx.index)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), fx.index) {
			t.Errorf("truncated shard: error %v should name %s and the index", err, p)
		}
	})
	t.Run("two indexes", func(t *testing.T) {
		writeIndex(t, fx.index, fx.totalSize, fx.shardOf)
		other := filepath.Join(fx.dir, "other.safetensors.index.json")
		writeIndex(t, other, fx.totalSize, fx.shardOf)
		defer os.Remove(other)
		if _, err := weights.Open(fx.dir); err == nil || !strings.Contains(err.Error(), "several safetensors index files") {
			t.Errorf("two indexes: %v", err)
		}
	})
}

// TestMissingTensor checks that a missing tensor wraps ErrNotFound and lists the files searched.
func TestMissingTensor(t *testing.T) {
	fx := writeSharded(t)
	c, err := weights.Open(fx.index)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Tensor("transformer_blocks.9.attn.to_q.weight")
	if !errors.Is(err, weights.ErrNotFound) {
		t.Fatalf("error %v does not wrap ErrNotFound", err)
	}
	for _, w := range append(c.Files(), `"transformer_blocks.9.attn.to_q.weight"`) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if _, err := c.TensorShape("nope", 1); !errors.Is(err, weights.ErrNotFound) {
		t.Errorf("TensorShape: %v", err)
	}
	f, err := weights.OpenFile(c.Files()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Tensor("nope"); !errors.Is(err, weights.ErrNotFound) || !strings.Contains(err.Error(), c.Files()[0]) {
		t.Errorf("File.Tensor: %v", err)
	}
}

// TestOpenFolder covers folders without an index: several loose files, duplicates across
// files, hidden files, glob metacharacters in the folder name, and empty folders.
func TestOpenFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "we[ird]*?")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := weights.Open(dir); err == nil || !strings.Contains(err.Error(), "no .safetensors") {
		t.Errorf("empty folder: %v", err)
	}
	write := func(name string, ts ...weights.OutTensor) {
		t.Helper()
		if err := weights.WriteFile(filepath.Join(dir, name), ts, nil); err != nil {
			t.Fatal(err)
		}
	}
	write("b.safetensors", weights.OutTensor{Name: "y", Shape: []int{2}, F32: []float32{3, 4}})
	write("a.safetensors", weights.OutTensor{Name: "x", Shape: []int{1}, I64: []int64{7}})
	// Ignored: hidden (e.g. macOS "._" files), folders, other extensions.
	os.WriteFile(filepath.Join(dir, "._a.safetensors"), []byte("junk"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("junk"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub.safetensors"), 0o755)
	c, err := weights.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fs := c.Files(); len(fs) != 2 || filepath.Base(fs[0]) != "a.safetensors" {
		t.Errorf("files %v", fs)
	}
	if !slices.Equal(c.Names(), []string{"x", "y"}) || !c.Has("y") || c.Has("z") {
		t.Errorf("names %v", c.Names())
	}
	c.Close()

	write("c.safetensors", weights.OutTensor{Name: "y", Shape: []int{1}, F32: []float32{5}})
	if _, err := weights.Open(dir); err == nil || !strings.Contains(err.Error(), `"y"`) || !strings.Contains(err.Error(), "c.safetensors") {
		t.Errorf("duplicate tensor across files: %v", err)
	}
	if _, err := weights.Open(filepath.Join(dir, "missing.safetensors")); err == nil || !strings.Contains(err.Error(), "missing.safetensors") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := weights.OpenFile(filepath.Join(dir, "sub.safetensors")); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
}
