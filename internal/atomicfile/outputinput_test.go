package atomicfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/internal/atomicfile"
)

// TestCheckOutputRefusesInputs: an output that is, after links, a file the run reads is
// refused with both paths named (issue 23 item 1); other outputs pass.
func TestCheckOutputRefusesInputs(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.safetensors")
	if err := os.WriteFile(model, []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink(model, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	hard := filepath.Join(dir, "hard.png")
	if err := os.Link(model, hard); err != nil {
		t.Skip("no hard links:", err)
	}
	for _, out := range []string{model, link, hard, filepath.Join(dir, ".", "model.safetensors")} {
		err := atomicfile.CheckOutput(out, filepath.Join(dir, "other"), model)
		if err == nil || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "reads") && out != model {
			t.Errorf("CheckOutput(%s) = %v, want a refusal naming both paths", out, err)
		}
	}
	if err := atomicfile.CheckOutput(filepath.Join(dir, "new.png"), model); err != nil {
		t.Errorf("new output refused: %v", err)
	}
	if b, _ := os.ReadFile(model); string(b) != "weights" {
		t.Errorf("input changed to %q", b)
	}
}
