//go:build unix

package gallery

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
	"kleinbild/internal/testfix/metapng"
)

// A FIFO named *.png (or index.json) in the gallery folder does not stop the gallery from
// loading, and images are still saved; before the fix the scan blocked opening the FIFO.
func TestIgnoresFIFOs(t *testing.T) {
	dir := t.TempDir()
	metapng.Write(t, dir, "plain.png", 16, 16, nil)
	for _, name := range []string{"fifo.png", "index.json"} {
		testfix.FIFO(t, dir, name)
	}
	os.Symlink(filepath.Join(dir, "fifo.png"), filepath.Join(dir, "link.png"))
	testfix.DevZero(t, dir, "zero.png")
	var (
		g   *Gallery
		rep Report
		err error
	)
	hangguard.WithinLabel(t, 10*time.Second, "Open("+dir+") with FIFOs in it", func() {
		g, rep, err = Open(context.Background(), dir, Options{})
	})
	if err != nil || g.Len() != 1 || len(rep.Unreadable) != 0 || !rep.Rebuilt {
		t.Fatalf("gallery: %v, %d entries, %+v", err, g.Len(), rep)
	}
	if _, err := g.Add(image.NewNRGBA(image.Rect(0, 0, 8, 8)), imageio.Metadata{Settings: schema.Settings{Prompt: "new", Seed: 2}}); err != nil {
		t.Fatalf("saving next to a FIFO: %v", err)
	}
	if g.Len() != 2 {
		t.Errorf("%d entries after Add", g.Len())
	}
}

// Delete refuses ".", "..", hidden names, paths and folders; before the fix "." and ".."
// passed the check (and were handed to os.Remove).
func TestDeleteRefusesNonFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gallery")
	g, _, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for _, name := range []string{"", ".", "..", "../escape.png", "a/b.png", ".hidden.png", "index.json", "sub"} {
		if _, err := g.Delete(name); err == nil {
			t.Errorf("Delete(%q) accepted", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); err != nil {
		t.Error("a folder in the gallery was removed")
	}
	p := metapng.Write(t, dir, "x.png", 16, 16, nil)
	if _, err := g.Delete("x.png"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("x.png not deleted")
	}
	names, _ := os.ReadDir(dir)
	if !slices.ContainsFunc(names, func(e os.DirEntry) bool { return e.Name() == "index.json" }) {
		t.Error("index missing after Delete")
	}
}
