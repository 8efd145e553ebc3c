package gallery

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/testfix/metapng"
)

func TestReconcilesWithDisk(t *testing.T) {
	dir := t.TempDir()
	g, rep, err := Open(context.Background(), dir, Options{})
	if err != nil || g.Len() != 0 || !rep.Rebuilt {
		t.Fatalf("new gallery: %v, %d entries, %+v", err, g.Len(), rep)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	a, err := g.Add(img, imageio.Metadata{Settings: schema.Settings{Prompt: "a", Seed: 1}, Created: t0})
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Add(img, imageio.Metadata{Settings: schema.Settings{Prompt: "b", Seed: 1}, Created: t0})
	if err != nil {
		t.Fatal(err)
	}
	if a.File == b.File {
		t.Fatalf("two images got the same file name %s", a.File)
	}

	// Behind the gallery's back: a PNG without metadata, one with, a stale temp file of an
	// interrupted write, a fresh one (maybe still being written), a damaged PNG, a deleted image.
	metapng.Write(t, dir, "plain.png", 16, 16, nil)
	metapng.Write(t, dir, "copied.png", 16, 16, &imageio.Metadata{Settings: schema.Settings{Prompt: "copied"}, Created: t0.Add(time.Hour)})
	stale := filepath.Join(dir, ".x.png"+atomicfile.TempMarker+"123")
	fresh := filepath.Join(dir, ".y.png"+atomicfile.TempMarker+"456")
	users := filepath.Join(dir, ".notes.tmp-1") // a user's own file: not the writer's marker
	os.WriteFile(stale, []byte("partial"), 0o644)
	os.WriteFile(fresh, []byte("partial"), 0o644)
	os.WriteFile(users, []byte("mine"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	os.Chtimes(users, old, old)
	os.WriteFile(filepath.Join(dir, "broken.png"), []byte("\x89PNG\r\n\x1a\nrubbish"), 0o644)
	os.Remove(filepath.Join(dir, a.File))

	g2, rep, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rebuilt || len(rep.Unreadable) != 1 || rep.Unreadable[0] != "broken.png" {
		t.Errorf("report %+v", rep)
	}
	var names []string
	for i := range g2.Len() {
		e, _ := g2.At(i)
		names = append(names, e.File)
	}
	// Newest first: copied (t0+1h), then plain (file time: now), b (t0)... plain has no
	// metadata, so its file time (now) sorts it first.
	if len(names) != 3 || names[0] != "plain.png" || names[1] != "copied.png" || names[2] != b.File {
		t.Errorf("entries %v", names)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale temporary file left behind")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file (a write in progress) was removed")
	}
	if _, err := os.Stat(users); err != nil {
		t.Error("a user's own .tmp- file was deleted (issue 23 item 14)")
	}
	if e, ok := g2.ByPath(filepath.Join(dir, "copied.png")); !ok || !e.HasMeta || e.Meta.Prompt != "copied" {
		t.Errorf("copied.png: %+v %v", e, ok)
	}
	if e, ok := g2.ByPath(filepath.Join(dir, "plain.png")); !ok || e.HasMeta || e.SHA256 == "" {
		t.Errorf("plain.png: %+v %v", e, ok)
	}
	if _, err := g2.Delete("../escape.png"); err == nil {
		t.Error("Delete accepted a path outside the gallery")
	}
}
