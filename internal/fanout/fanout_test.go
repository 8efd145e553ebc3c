package fanout

import (
	"strings"
	"sync"
	"testing"
)

// TestRangesCover: the ranges are disjoint and cover [0, n) for any n and worker count, the
// first on the calling goroutine.
func TestRangesCover(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 64, 1000} {
		for _, workers := range []int{0, 1, 2, 3, 8, 2000} {
			var mu sync.Mutex
			seen := make([]int, n)
			Ranges(n, workers, func(lo, hi int) {
				mu.Lock()
				defer mu.Unlock()
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n %d, %d workers: index %d covered %d times", n, workers, i, c)
				}
			}
		}
	}
}

// TestPanicReachesCaller: a panic on another goroutine is raised again on the caller, after
// every range has returned.
func TestPanicReachesCaller(t *testing.T) {
	var mu sync.Mutex
	done := 0
	r := func() (r any) {
		defer func() { r = recover() }()
		Ranges(4, 4, func(lo, hi int) {
			mu.Lock()
			done++
			mu.Unlock()
			if lo == 3 {
				panic("range 3")
			}
		})
		return nil
	}()
	if s, _ := r.(string); !strings.Contains(s, "range 3") || done != 4 {
		t.Fatalf("recovered %v after %d of 4 ranges, want range 3's panic after all", r, done)
	}
}
