package gallery

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Issue 22 item 5: the Trash view lists the trashed images newest first, restores any of
// them whatever their batch, and empties the trash for good; batches Undo holds report
// whether anything of them is left.
func TestTrashListRestoreItemsAndEmpty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gallery")
	trash := filepath.Join(filepath.Dir(dir), "trash")
	g, _, err := Open(context.Background(), dir, Options{TrashDir: trash})
	if err != nil {
		t.Fatal(err)
	}
	es := addN(t, g, 4)
	b1, err := g.Delete(es[0].File, es[1].File)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := g.Delete(es[2].File)
	if err != nil {
		t.Fatal(err)
	}
	items := g.Trash()
	if len(items) != 3 || items[0].Entry.File != es[2].File || items[0].Batch != b2 || items[0].Deleted.IsZero() {
		t.Fatalf("trash lists %+v, want %s first", items, es[2].File)
	}
	if _, err := os.Stat(g.TrashPath(items[0].Name)); err != nil {
		t.Errorf("TrashPath: %v", err)
	}
	// Restore one image of the first batch: the batch is still in the trash.
	var name string
	for _, it := range items {
		if it.Entry.File == es[1].File {
			name = it.Name
		}
	}
	back, err := g.RestoreItems(name, "no-such-file")
	if err != nil || len(back) != 1 || back[0].File != es[1].File || g.IndexOf(es[1].File) < 0 {
		t.Fatalf("RestoreItems: %v, %+v", err, back)
	}
	if !g.InTrash(b1) || !g.InTrash(b2) || g.TrashLen() != 2 {
		t.Errorf("after restoring one: batch 1 in trash %v, batch 2 %v, %d items", g.InTrash(b1), g.InTrash(b2), g.TrashLen())
	}
	gone, err := g.EmptyTrash()
	if err != nil || len(gone) != 2 || g.TrashLen() != 0 || g.InTrash(b1) || g.InTrash(b2) {
		t.Fatalf("EmptyTrash: %v, %d gone, %d left", err, len(gone), g.TrashLen())
	}
	des, _ := os.ReadDir(trash)
	for _, de := range des {
		if de.Name() != IndexName {
			t.Errorf("%s left in the trash folder", de.Name())
		}
	}
	// The emptied trash stays empty after a restart; the restored image stays.
	g, _, err = Open(context.Background(), dir, Options{TrashDir: trash})
	if err != nil || g.TrashLen() != 0 || g.Len() != 2 {
		t.Errorf("after restart: %v, %d in the trash, %d images", err, g.TrashLen(), g.Len())
	}
	if _, err := g.Restore(b2); err == nil {
		t.Error("Restore of an emptied batch succeeded")
	}
}
