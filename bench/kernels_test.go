package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// smallAlloc is a CPU backend that refuses matrices (2 or more dimensions) above limit
// elements, as a device refuses a buffer beyond its limits; vectors (the copy test) pass.
type smallAlloc struct {
	gpu.Backend
	limit int
}

func (s smallAlloc) Alloc(dt gpu.DType, shape ...int) (gpu.Tensor, error) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if len(shape) > 1 && n > s.limit {
		return gpu.Tensor{}, errors.New("cannot allocate: larger than its maximum buffer size")
	}
	return s.Backend.Alloc(dt, shape...)
}

// TestKernelsStreamAndGoOn: each row is written as soon as its kernel is measured (before
// the next one starts), a kernel that fails prints its error in its row, and the rows after
// it are still measured.
func TestKernelsStreamAndGoOn(t *testing.T) {
	b := smallAlloc{backends.DefaultCPU(), 300_000}
	defer b.Close()
	var out strings.Builder
	log := func(format string, a ...any) { fmt.Fprintf(&out, "LOG "+format+"\n", a...) }
	rep, err := RunKernels(context.Background(), KernelOptions{Backend: b, Quick: true, Reps: 1, Log: log, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	cases := kernelCases(true)
	if len(rep.Kernels) != len(cases) {
		t.Fatalf("%d rows, want %d", len(rep.Kernels), len(cases))
	}
	firstFail, measuredAfter := -1, 0
	text := out.String()
	for i, k := range rep.Kernels {
		line := k.line()
		at := strings.Index(text, line)
		if at < 0 {
			t.Fatalf("row %d not written:\n%s", i, text)
		}
		if i+1 < len(cases) {
			next := strings.Index(text, fmt.Sprintf("LOG %s: %s\n", cases[i+1].model, cases[i+1].w.Name))
			if next < at {
				t.Errorf("row %d written after kernel %d started", i, i+1)
			}
		}
		if k.Error != "" {
			if firstFail < 0 {
				firstFail = i
			}
			if !strings.Contains(line, "error: ") || !strings.Contains(line, "maximum buffer size") {
				t.Errorf("failed row without its error: %q", line)
			}
		} else if k.GFLOPS > 0 && firstFail >= 0 {
			measuredAfter++
		}
	}
	if firstFail < 0 || measuredAfter == 0 {
		t.Errorf("first failed row %d, %d rows measured after it; want a failure and rows after it", firstFail, measuredAfter)
	}
	if !strings.HasSuffix(strings.TrimSpace(text), rep.peakLine()) {
		t.Errorf("no device peak line at the end:\n%s", text)
	}
}
