package webgpu

import (
	"strings"
	"testing"
)

// TestShapeBucket: a bucket is the least power of two at or above the rows, so its
// boundaries fall just past each power of two.
func TestShapeBucket(t *testing.T) {
	for _, c := range [][2]int{{0, 1}, {1, 1}, {2, 2}, {3, 4}, {256, 256}, {257, 512}, {512, 512}, {513, 1024},
		{768, 1024}, {4096, 4096}, {4097, 8192}, {4608, 8192}, {12544, 16384}, {13056, 16384}} {
		if got := shapeBucket(c[0]); got != c[1] {
			t.Errorf("shapeBucket(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// TestModelShapes: klein-4B's and Qwen3-4B's shapes at 256², 1024² and 1792² hold the
// issue's (the N=3072 down-projections of K 9216 and 12288, N 18432 and 27648 at each size,
// the encoder's), each key once, none of smallM's rows.
func TestModelShapes(t *testing.T) {
	shapes := Klein4BDims().Shapes(DefaultShapeSizes())
	have := map[shapeKey]LinearShape{}
	for _, s := range shapes {
		k := keyOf(s.M, s.N, s.K)
		if _, dup := have[k]; dup {
			t.Errorf("key %+v listed twice (%s)", k, s.Name)
		}
		if s.M <= smallRows {
			t.Errorf("%s: %d rows run the small tile whatever the record", s.Name, s.M)
		}
		have[k] = s
	}
	for _, w := range []struct{ m, n, k int }{
		{256, 3072, 9216}, {4096, 3072, 9216}, {12544, 3072, 9216}, // double blocks' ff.linear_out
		{768, 3072, 12288}, {4608, 3072, 12288}, {13056, 3072, 12288}, // single blocks' to_out
		{256, 18432, 3072}, {4096, 18432, 3072}, {12544, 18432, 3072}, // ff.linear_in
		{768, 27648, 3072}, {4608, 27648, 3072}, {13056, 27648, 3072}, // to_qkv_mlp_proj
		{512, 3072, 3072}, {512, 3072, 7680}, // text stream, context_embedder
		{512, 4096, 2560}, {512, 1024, 2560}, {512, 2560, 4096}, {512, 9728, 2560}, {512, 2560, 9728}, // encoder
	} {
		s, ok := have[keyOf(w.m, w.n, w.k)]
		if !ok {
			t.Errorf("no shape %d×%d→%d", w.m, w.k, w.n)
			continue
		}
		if s.M != w.m && !strings.Contains(s.Name, "text") {
			t.Errorf("%d×%d→%d stands for %s of %d rows", w.m, w.k, w.n, s.Name, s.M)
		}
	}
	if got := Klein4BDims().Shapes([]int{256}); len(got) >= len(shapes) {
		t.Errorf("one size lists %d shapes, three %d", len(got), len(shapes))
	}
}
