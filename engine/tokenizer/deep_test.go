package tokenizer

import (
	"runtime"
	"strings"
	"testing"
)

// nested returns n '[' then n ']'.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestDeepNesting loads a tokenizer.json whose unused "extra" section nests 3,000,000
// arrays (6 MB): it must fail with a clear error, little memory and a bounded stack instead
// of overflowing the stack (the work is bounded by what is allocated, not timed). Nesting
// within the limit still loads.
func TestDeepNesting(t *testing.T) {
	tiny := string(mustJSON(t, tinyDoc(t)))
	withExtra := func(v string) []byte { return []byte(`{"extra": ` + v + `,` + tiny[1:]) }

	if _, err := Load(writeTokenizer(t, withExtra(nested(100)+`, "x": {"a": [{"b": {}}]}`), tinyConfig)); err != nil {
		t.Fatalf("100 levels: %v", err)
	}
	for _, n := range []int{maxDepth + 1, 3_000_000} {
		dir := writeTokenizer(t, withExtra(nested(n)), tinyConfig)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Load(dir)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "nested more than 10000 levels") || !strings.Contains(err.Error(), "tokenizer.json") {
			t.Fatalf("%d levels: error %v, want one naming tokenizer.json and the nesting limit", n, err)
		}
		// Reading the file and converting it to a string: twice its size, plus slack.
		if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(2*2*n+1<<20); alloc > limit {
			t.Errorf("%d levels: allocated %d bytes, want at most %d", n, alloc, limit)
		}
		if stack := after.StackInuse; stack > 8<<20 {
			t.Errorf("%d levels: %d bytes of goroutine stacks in use", n, stack)
		}
	}
}

// TestSparseVocabIDs: a tiny vocabulary claiming id 16,777,215 would size the id table to
// 16 M entries (268 MB); it is refused before that.
func TestSparseVocabIDs(t *testing.T) {
	doc := tinyDoc(t)
	modelOf(doc)["vocab"].(map[string]any)["zz"] = maxTokenID
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(writeTokenizer(t, mustJSON(t, doc), tinyConfig))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "largest id 16777215") {
		t.Fatalf("error %v, want one about the largest id", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d bytes", alloc)
	}
}

func TestScannerSkipDepth(t *testing.T) {
	for _, tc := range []struct {
		doc string
		ok  bool
	}{
		{nested(maxDepth), true},
		{nested(maxDepth + 1), false},
		{`{"a": [{"b": [1, {"c": "]"}]}, {}], "d": []}`, true},
		{`[1, {"a" 1}]`, false},
		{`[{"a": 1]`, false},
		{`{"a": [}`, false},
		{`[[[`, false},
		{`{"a": 1, }`, false},
		{`[1,]`, false},
		{`{1: 2}`, false},
	} {
		sc := &jsonScanner{data: tc.doc}
		raw, err := sc.skip()
		if tc.ok && (err != nil || raw != tc.doc || sc.end() != nil) {
			t.Errorf("skip(%.40q) = %.40q, %v", tc.doc, raw, err)
		}
		if !tc.ok && err == nil {
			t.Errorf("skip(%.40q) succeeded", tc.doc)
		}
	}
}
