package weights

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDontNeedAlignment advises sub-slices that start in the middle of a page (which
// madvise itself rejects with EINVAL) and checks the data afterwards.
func TestDontNeedAlignment(t *testing.T) {
	page := os.Getpagesize()
	path := filepath.Join(t.TempDir(), "a.safetensors")
	vals := make([]uint8, 5*page+123)
	for i := range vals {
		vals[i] = uint8(i * 7)
	}
	if err := WriteFile(path, []OutTensor{{Name: "u8", Shape: []int{len(vals)}, U8: vals}}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.mapped {
		t.Fatal("file is not memory-mapped")
	}
	if err := syscall.Madvise(f.data[1:], syscall.MADV_DONTNEED); !errors.Is(err, syscall.EINVAL) {
		t.Logf("note: unaligned madvise gave %v, expected EINVAL", err)
	}
	tn, _ := f.Tensor("u8")
	for _, r := range [][2]int{{0, len(f.data)}, {1, 2}, {page - 1, page + 1}, {3*page + 5, len(f.data)}, {len(f.data) - 1, len(f.data)}, {7, 7}} {
		if err := dontNeed(f.data, f.data[r[0]:r[1]]); err != nil {
			t.Errorf("dontNeed [%d, %d): %v", r[0], r[1], err)
		}
		if !bytes.Equal(tn.Bytes(), vals) {
			t.Fatalf("data changed after dontNeed [%d, %d)", r[0], r[1])
		}
	}
	if err := f.release(); err != nil {
		t.Errorf("release: %v", err)
	}
	if err := dontNeed(f.data, vals); err == nil {
		t.Error("dontNeed accepted a slice outside the mapping")
	}
	// In-memory files are never advised (that would discard heap memory).
	raw, _ := os.ReadFile(path)
	m, err := ParseBytes("mem", raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.mapped {
		t.Error("ParseBytes file claims to be mapped")
	}
	if err := m.release(); err != nil || !bytes.Equal(raw[len(raw)-len(vals):], vals) {
		t.Errorf("release of an in-memory file: %v", err)
	}
}
