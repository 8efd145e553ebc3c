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
	"kleinbild/internal/testfix/metapng"
)

// addN adds n small images with prompts p0, p1, … and returns them.
func addN(t testing.TB, g *Gallery, n int) []Entry {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var out []Entry
	for i := range n {
		e, err := g.Add(img, imageio.Metadata{Settings: schema.Settings{Prompt: "p" + string(rune('a'+i)), Seed: uint64(i)}, Created: t0.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// Delete moves images into the trash (not away for good) and Restore brings back the
// files and their entries, favourites included, also across a restart.
func TestDeleteToTrashAndRestore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gallery")
	trash := filepath.Join(filepath.Dir(dir), "trash")
	g, _, err := Open(context.Background(), dir, Options{TrashDir: trash})
	if err != nil {
		t.Fatal(err)
	}
	es := addN(t, g, 3)
	if _, err := g.SetFavourite(es[0].File, true); err != nil {
		t.Fatal(err)
	}
	batch, err := g.Delete(es[0].File, es[1].File)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 1 || g.TrashLen() != 2 {
		t.Fatalf("after delete: %d images, %d in the trash", g.Len(), g.TrashLen())
	}
	for _, e := range es[:2] {
		if _, err := os.Stat(filepath.Join(dir, e.File)); !os.IsNotExist(err) {
			t.Errorf("%s still in the gallery folder", e.File)
		}
		if _, err := os.Stat(filepath.Join(trash, batch+"-"+e.File)); err != nil {
			t.Errorf("%s not in the trash: %v", e.File, err)
		}
	}
	// A restart in between: the trash remembers the entries.
	g, rep, err := Open(context.Background(), dir, Options{TrashDir: trash})
	if err != nil || rep.Rebuilt || len(rep.Expired) != 0 || g.Len() != 1 || g.TrashLen() != 2 {
		t.Fatalf("reopened: %v %+v, %d images, %d in the trash", err, rep, g.Len(), g.TrashLen())
	}
	got, err := g.Restore(batch)
	if err != nil || len(got) != 2 {
		t.Fatalf("restore: %v, %d entries", err, len(got))
	}
	if g.Len() != 3 || g.TrashLen() != 0 {
		t.Fatalf("after restore: %d images, %d in the trash", g.Len(), g.TrashLen())
	}
	for i := range 3 {
		// Newest first, as before.
		e, _ := g.At(i)
		want := es[2-i]
		if e.File != want.File || e.SHA256 != want.SHA256 || e.Meta.Prompt != want.Meta.Prompt {
			t.Errorf("entry %d: %s %q, want %s", i, e.File, e.Meta.Prompt, want.File)
		}
	}
	if e, _ := g.ByFile(es[0].File); !e.Favourite {
		t.Error("the favourite was lost in the trash")
	}
	g, rep, err = Open(context.Background(), dir, Options{TrashDir: trash})
	if err != nil || rep.Rebuilt || g.Len() != 3 || g.TrashLen() != 0 {
		t.Fatalf("reopened after restore: %v %+v, %d images", err, rep, g.Len())
	}
	if _, err := g.Restore(batch); err == nil {
		t.Error("a batch restored twice")
	}
}

// An image whose name was taken while it was in the trash comes back under a new name.
func TestRestoreUnderNewName(t *testing.T) {
	dir := t.TempDir()
	metapng.Write(t, dir, "x.png", 8, 8, &imageio.Metadata{Settings: schema.Settings{Prompt: "old"}})
	g, _, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := g.Delete("x.png")
	if err != nil {
		t.Fatal(err)
	}
	metapng.Write(t, dir, "x.png", 8, 8, &imageio.Metadata{Settings: schema.Settings{Prompt: "new"}})
	got, err := g.Restore(batch)
	if err != nil || len(got) != 1 || got[0].File != "x-restored.png" || got[0].Meta.Prompt != "old" {
		t.Fatalf("restore: %v %+v", err, got)
	}
	if _, err := os.Stat(filepath.Join(dir, "x-restored.png")); err != nil {
		t.Error(err)
	}
}

// Opening the gallery empties the trash of images deleted more than KeepTrash ago,
// including files whose trash record was lost, and leaves younger ones and foreign files.
func TestTrashExpires(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	g, _, err := Open(context.Background(), dir, Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	es := addN(t, g, 3)
	if _, err := g.Delete(es[0].File); err != nil {
		t.Fatal(err)
	}
	now = now.Add(20 * 24 * time.Hour)
	young, err := g.Delete(es[1].File)
	if err != nil {
		t.Fatal(err)
	}
	trash := g.TrashDir()
	// A file of ours without a record (its deletion time is in its name), and a foreign one.
	orphan := filepath.Join(trash, "1000-lost.png")
	foreign := filepath.Join(trash, "notes.txt")
	os.WriteFile(orphan, []byte("x"), 0o644)
	os.WriteFile(foreign, []byte("x"), 0o644)

	now = now.Add(15 * 24 * time.Hour) // the first delete is 35 days old, the second 15
	g, rep, err := Open(context.Background(), dir, Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Expired) != 2 || g.TrashLen() != 1 {
		t.Fatalf("expired %+v, %d left in the trash", rep.Expired, g.TrashLen())
	}
	if rep.Expired[0].SHA256 != es[0].SHA256 && rep.Expired[1].SHA256 != es[0].SHA256 {
		t.Errorf("expired entries %+v lack the old image", rep.Expired)
	}
	des, _ := os.ReadDir(trash)
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	if len(names) != 3 { // the young image, notes.txt, index.json
		t.Errorf("trash holds %v", names)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Error("a file that is not Kleinbild's was removed from the trash")
	}
	if got, err := g.Restore(young); err != nil || len(got) != 1 || got[0].File != es[1].File {
		t.Errorf("young image: %v %+v", err, got)
	}
}

func TestFavouritesPersist(t *testing.T) {
	dir := t.TempDir()
	g, _, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	es := addN(t, g, 2)
	if _, err := g.SetFavourite(es[1].File, true); err != nil {
		t.Fatal(err)
	}
	if _, err := g.SetFavourite("gone.png", true); err == nil {
		t.Error("starred a missing image")
	}
	g, rep, err := Open(context.Background(), dir, Options{})
	if err != nil || rep.Rebuilt {
		t.Fatal(err, rep)
	}
	if e, _ := g.ByFile(es[1].File); !e.Favourite {
		t.Error("favourite lost on reopen")
	}
	if e, _ := g.ByFile(es[0].File); e.Favourite {
		t.Error("unstarred image is a favourite")
	}
	// A file changed behind the gallery's back is read again but keeps its star.
	p := filepath.Join(dir, es[1].File)
	later := time.Now().Add(time.Hour)
	os.Chtimes(p, later, later)
	if g, _, err = Open(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if e, _ := g.ByFile(es[1].File); !e.Favourite || e.ModTime != later.UnixNano() {
		t.Errorf("changed file: %+v", e)
	}
	if _, err := g.SetFavourite(es[1].File, false); err != nil {
		t.Fatal(err)
	}
	if g, _, err = Open(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if e, _ := g.ByFile(es[1].File); e.Favourite {
		t.Error("unstarring not saved")
	}
}

// A Delete naming one bad file deletes nothing; one naming only files already gone drops
// their entries and returns no batch to undo.
func TestDeleteAllOrNothingAndGoneFiles(t *testing.T) {
	dir := t.TempDir()
	g, _, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	es := addN(t, g, 2)
	if _, err := g.Delete(es[0].File, "../x.png"); err == nil || g.Len() != 2 || g.TrashLen() != 0 {
		t.Fatalf("mixed delete: %v, %d images, %d in the trash", err, g.Len(), g.TrashLen())
	}
	os.Remove(filepath.Join(dir, es[1].File))
	batch, err := g.Delete(es[1].File)
	if err != nil || batch != "" || g.Len() != 1 || g.TrashLen() != 0 {
		t.Fatalf("gone file: batch %q, %v, %d images", batch, err, g.Len())
	}
	if _, err := g.Restore("123"); err == nil {
		t.Error("restored an unknown batch")
	}
}

func TestToggleFavourite(t *testing.T) {
	g, _, err := Open(context.Background(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := addN(t, g, 1)[0]
	for i, want := range []bool{true, false, true} {
		got, err := g.ToggleFavourite(e.File)
		if err != nil || got.Favourite != want {
			t.Fatalf("toggle %d: %v %v", i, got.Favourite, err)
		}
	}
	if got := g.Find(Filter{Favourites: true}); len(got) != 1 {
		t.Errorf("favourites: %d", len(got))
	}
}
