//go:build unix

package download

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/internal/testfix"
	"kleinbild/weights/golden"
)

// TestValidateSpecialConfigFiles: info -d on a folder whose JSON files are FIFOs reports
// them as corrupt at once (issue 23 item 5: validate.go read them with os.ReadFile and hung;
// a link to /dev/zero grew past 3.9 GB).
func TestValidateSpecialConfigFiles(t *testing.T) {
	for _, rel := range []string{"transformer/config.json", "tokenizer/tokenizer_config.json", "model_index.json"} {
		dir := t.TempDir()
		linkTree(t, golden.TinyModel(t), dir)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.Remove(p)
		testfix.FIFO(t, filepath.Dir(p), filepath.Base(p))
		done := make(chan *Report, 1)
		go func() {
			r, err := Validate(context.Background(), dir, ValidateOptions{})
			if err != nil {
				t.Error(err)
			}
			done <- r
		}()
		select {
		case r := <-done:
			if r == nil || r.OK() {
				t.Errorf("%s as a FIFO: no problem reported", rel)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s as a FIFO: Validate blocked", rel)
		}
	}
}
