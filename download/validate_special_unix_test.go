//go:build unix

package download

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/internal/hangguard"
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
		var r *Report
		hangguard.WithinLabel(t, 20*time.Second, "Validate with "+p+" a FIFO", func() {
			var err error
			r, err = Validate(context.Background(), dir, ValidateOptions{})
			if err != nil {
				t.Error(err)
			}
		})
		if r == nil || r.OK() {
			t.Errorf("%s as a FIFO: no problem reported", rel)
		}
	}
}
