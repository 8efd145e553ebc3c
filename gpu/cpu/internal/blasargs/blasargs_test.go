package blasargs

import (
	"math"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	ok := []struct {
		ta, tb                             bool
		m, n, k, la, lda, lb, ldb, lc, ldc int
	}{
		{false, false, 2, 3, 4, 8, 4, 12, 3, 6, 3},
		{true, true, 2, 3, 4, 8, 2, 12, 4, 6, 3},
		{false, false, 2, 3, 4, 5 + 4, 5, 3*4 + 3, 4, 3 + 3, 3}, // strided: the last row needs no gap
		{false, false, 0, 3, 4, 0, 4, 12, 3, 0, 3},
		{false, false, 2, 3, 0, 0, 1, 0, 3, 6, 3},
	}
	for i, c := range ok {
		if err := check(c.ta, c.tb, c.m, c.n, c.k, c.la, c.lda, c.lb, c.ldb, c.lc, c.ldc); err != nil {
			t.Errorf("case %d: unexpected error %v", i, err)
		}
	}
	bad := []struct {
		want                               string
		ta, tb                             bool
		m, n, k, la, lda, lb, ldb, lc, ldc int
	}{
		{"A has 7", false, false, 2, 3, 4, 7, 4, 12, 3, 6, 3},
		{"ldA=3", false, false, 2, 3, 4, 8, 3, 12, 3, 6, 3},
		{"B has 11", true, false, 2, 3, 4, 8, 2, 11, 3, 6, 3},
		{"ldB=3", false, true, 2, 3, 4, 8, 4, 12, 3, 6, 3},
		{"C has 5", false, false, 2, 3, 4, 8, 4, 12, 3, 5, 3},
		{"out of range", false, false, -1, 3, 4, 8, 4, 12, 3, 6, 3},
		{"out of range", false, false, 1, math.MaxInt32 + 1, 1, 1, 1, 1, 1, 1, 1},
	}
	for _, c := range bad {
		err := check(c.ta, c.tb, c.m, c.n, c.k, c.la, c.lda, c.lb, c.ldb, c.lc, c.ldc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error containing %q, got %v", c.want, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Check did not panic on a short slice")
		}
	}()
	Check(false, false, 2, 2, 2, 3, 2, 4, 2, 4, 2)
}

func TestScaleC(t *testing.T) {
	nan := float32(math.NaN())
	c := []float32{nan, 2, 9, nan, 4, 9}
	ScaleC(2, 2, 0, c, 3)
	if want := []float32{0, 0, 9, 0, 0, 9}; !equal(c, want) {
		t.Errorf("beta=0: %v, want %v", c, want)
	}
	c = []float32{1, 2, 9, 3, 4, 9}
	ScaleC(2, 2, 0.5, c, 3)
	if want := []float32{0.5, 1, 9, 1.5, 2, 9}; !equal(c, want) {
		t.Errorf("beta=0.5: %v, want %v", c, want)
	}
}

func equal(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestPrepare(t *testing.T) {
	c := []float32{1, 2, 3, 4}
	if Prepare(false, false, 0, 2, 3, 0, 0, 3, 6, 2, nil, 2) {
		t.Error("empty C needs a BLAS call")
	}
	if Prepare(false, false, 2, 2, 0, 0.5, 0, 1, 0, 2, c, 2) || c[0] != 0.5 || c[3] != 2 {
		t.Errorf("k = 0: BLAS call asked or C = %v, want beta·C", c)
	}
	if !Prepare(false, false, 2, 2, 1, 0, 2, 1, 2, 2, c, 2) {
		t.Error("a real product needs no BLAS call")
	}
	defer func() {
		if recover() == nil {
			t.Error("a short C did not panic")
		}
	}()
	Prepare(false, false, 2, 2, 1, 0, 2, 1, 2, 2, c[:3], 2)
}
