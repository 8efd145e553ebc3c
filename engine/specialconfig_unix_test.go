//go:build unix

package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/engine"
	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/engine/vae"
	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

// Config files and tokenizer.json that are FIFOs or links to /dev/zero are refused at once:
// before, the FIFO blocked every loader forever and /dev/zero was read until memory ran out.
func TestSpecialConfigFilesRefusedQuickly(t *testing.T) {
	for _, kind := range []string{"fifo", "zero"} {
		dir := t.TempDir()
		mk := func(rel string) string {
			p := filepath.Join(dir, rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if kind == "fifo" {
				return testfix.FIFO(t, filepath.Dir(p), filepath.Base(p))
			}
			return testfix.DevZero(t, filepath.Dir(p), filepath.Base(p))
		}
		want := map[string]string{"fifo": "named pipe", "zero": "character device"}[kind]
		loaders := []struct {
			name string
			load func() error
		}{
			{"qwen3", func() error { _, err := qwen3.LoadConfig(mk("text_encoder/config.json")); return err }},
			{"flux2", func() error { _, err := flux2.LoadConfig(mk("transformer/config.json")); return err }},
			{"vae", func() error { _, err := vae.LoadConfig(mk("vae/config.json")); return err }},
			{"tokenizer", func() error {
				mk("tokenizer/tokenizer.json")
				_, err := tokenizer.Load(filepath.Join(dir, "tokenizer"))
				return err
			}},
			{"model_index", func() error { mk("model_index.json"); _, err := engine.Inspect(dir); return err }},
		}
		for _, l := range loaders {
			var err error
			hangguard.WithinLabel(t, 5*time.Second, fmt.Sprintf("%s %s, its files in %s", kind, l.name, dir), func() { err = l.load() })
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %v, want %q", kind, l.name, err, want)
			}
		}
	}
}
