//go:build unix

package engine

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/gpu/backends"
	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
	"kleinbild/weights/golden"
)

// TestEmbedCacheNeverWritesThroughLinks: a symlink or a FIFO planted at a cache entry's path
// is replaced by the new entry; the link's target stays as it was, and the encode does not
// block on the FIFO (issue 23 items 3 and 5: the target was overwritten, the FIFO hung).
func TestEmbedCacheNeverWritesThroughLinks(t *testing.T) {
	const prompt = "A red cube on a blue table"
	for _, kind := range []string{"symlink", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			m, err := Open(golden.TinyModel(t), backends.Default(), Options{CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			p := m.embeds.path(prompt)
			os.MkdirAll(filepath.Dir(p), 0o755)
			victim := filepath.Join(t.TempDir(), "victim")
			os.WriteFile(victim, []byte("precious"), 0o644)
			if kind == "symlink" {
				if err := os.Symlink(victim, p); err != nil {
					t.Skip(err)
				}
			} else {
				testfix.FIFO(t, filepath.Dir(p), filepath.Base(p))
			}
			hangguard.WithinOptions(t, time.Minute, hangguard.Options{
				Label: "EncodePrompt with a " + kind + " at the cache path " + p,
				Unblock: func() { // a reader unblocks the writer
					if f, err := os.Open(p); err == nil {
						io.Copy(io.Discard, f)
						f.Close()
					}
				},
			}, func() { _, err = m.EncodePrompt(context.Background(), prompt, nil) })
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious" {
				t.Errorf("the link's target was overwritten: %q", b)
			}
			if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
				t.Errorf("cache entry is not a regular file: %v", err)
			}
		})
	}
}
