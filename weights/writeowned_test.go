package weights_test

import (
	"os"
	"path/filepath"
	"testing"

	"kleinbild/weights"
)

// TestWriteOwnedFileReplacesLinks: a program-owned file is written over a symlink at its
// path, never through it (issue 23 item 3).
func TestWriteOwnedFileReplacesLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "cache.safetensors")
	if err := os.Symlink(victim, p); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := weights.WriteOwnedFile(p, []weights.OutTensor{{Name: "x", Shape: []int{1}, F32: []float32{1}}}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("link target overwritten: %q", b)
	}
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		t.Errorf("cache path is not a regular file: %v %v", st, err)
	}
}
