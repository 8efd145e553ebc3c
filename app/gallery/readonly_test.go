package gallery

import (
	"context"
	"errors"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/testfix/metapng"
)

// treeState is every entry under root: its kind, size, time and content.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		s := fi.Mode().String() + " " + fi.ModTime().String()
		if fi.Mode().IsRegular() {
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s += " " + string(raw)
		}
		out[rel] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadOnlyWritesNothing: a gallery opened read-only (the second window on a data folder,
// issue 23 item 9) sees the images, including one added behind the index's back, but Open
// writes nothing (no index rebuild, no stale temporary removed, no trash expired) and every
// change is refused with ErrReadOnly, leaving the folder byte for byte as it was.
func TestReadOnlyWritesNothing(t *testing.T) {
	root := t.TempDir()
	dir, trash := filepath.Join(root, "gallery"), filepath.Join(root, "trash")
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	g, _, err := Open(context.Background(), dir, Options{TrashDir: trash, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	a, err := g.Add(img, imageio.Metadata{Settings: schema.Settings{Prompt: "a", Seed: 1}, Created: now})
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Add(img, imageio.Metadata{Settings: schema.Settings{Prompt: "b", Seed: 2}, Created: now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.SetFavourite(a.File, true); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Delete(b.File); err != nil {
		t.Fatal(err)
	}
	// What a writable Open would change: an image the index does not know, a stale
	// temporary, and (40 days on) an expired trash item.
	metapng.Write(t, dir, "behind.png", 8, 8, nil)
	stale := filepath.Join(dir, ".x.png"+atomicfile.TempMarker+"1")
	if err := os.WriteFile(stale, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-time.Hour)
	os.Chtimes(stale, old, old)
	before := treeState(t, root)

	later := func() time.Time { return now.Add(40 * 24 * time.Hour) }
	ro, rep, err := Open(context.Background(), dir, Options{TrashDir: trash, Now: later, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !ro.ReadOnly() || ro.Len() != 2 || ro.TrashLen() != 1 || len(rep.Expired) != 0 {
		t.Fatalf("read-only view: %d images, %d in the trash, expired %v", ro.Len(), ro.TrashLen(), rep.Expired)
	}
	if e, ok := ro.ByFile(a.File); !ok || !e.Favourite {
		t.Errorf("favourite not seen: %+v", e)
	}
	if _, ok := ro.ByFile("behind.png"); !ok {
		t.Error("an image added behind the index's back is not shown")
	}
	refused := map[string]error{}
	_, refused["Add"] = ro.Add(img, imageio.Metadata{Settings: schema.Settings{Prompt: "c", Seed: 3}})
	_, refused["SetFavourite"] = ro.SetFavourite(a.File, false)
	_, refused["ToggleFavourite"] = ro.ToggleFavourite("behind.png")
	_, refused["Delete"] = ro.Delete(a.File)
	var batch string
	for _, it := range g.trashItems {
		batch = it.Batch
	}
	_, refused["Restore"] = ro.Restore(batch)
	for op, err := range refused {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only gallery: %v, want ErrReadOnly", op, err)
		}
	}
	if e, _ := ro.ByFile(a.File); !e.Favourite {
		t.Error("a refused unstar changed the entry in memory")
	}
	after := treeState(t, root)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed: %.80q -> %.80q", k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s was created", k)
		}
	}

	// A data folder with no gallery yet: an empty view, and no folder made.
	none := filepath.Join(root, "none")
	g2, _, err := Open(context.Background(), none, Options{ReadOnly: true})
	if err != nil || g2.Len() != 0 {
		t.Fatalf("missing folder: %v, %d", err, g2.Len())
	}
	if _, err := os.Stat(none); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only Open created %s", none)
	}
	if _, err := g2.Add(img, imageio.Metadata{}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Add: %v", err)
	}
}
