package gallery

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// TrashItem is an image in the trash as the Trash view lists it.
type TrashItem struct {
	// Name is the file's name in the trash folder (RestoreItems takes it).
	Name    string
	Batch   string
	Deleted time.Time
	// Entry is the image's gallery entry as it was when deleted.
	Entry Entry
}

// Trash lists the images in the trash, the most recently deleted first.
func (g *Gallery) Trash() []TrashItem {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]TrashItem, 0, len(g.trashItems))
	for i := len(g.trashItems) - 1; i >= 0; i-- {
		it := g.trashItems[i]
		out = append(out, TrashItem{Name: it.Name, Batch: it.Batch, Deleted: it.Deleted, Entry: it.Entry})
	}
	return out
}

// TrashPath is the path of the trashed image named name.
func (g *Gallery) TrashPath(name string) string { return filepath.Join(g.trash, name) }

// InTrash reports whether any image of the Delete batch is still in the trash.
func (g *Gallery) InTrash(batch string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return slices.ContainsFunc(g.trashItems, func(it *trashItem) bool { return it.Batch == batch })
}

// RestoreItems brings the named images back from the trash, whatever their batch, and
// returns their entries. Names no longer in the trash are skipped.
func (g *Gallery) RestoreItems(names ...string) ([]Entry, error) {
	g.opMu.Lock()
	defer g.opMu.Unlock()
	g.mu.RLock()
	var items []*trashItem
	for _, it := range g.trashItems {
		if slices.Contains(names, it.Name) {
			items = append(items, it)
		}
	}
	g.mu.RUnlock()
	out, done, errs := g.restoreAll(items)
	g.mu.Lock()
	g.trashItems = slices.DeleteFunc(g.trashItems, func(it *trashItem) bool { return slices.Contains(done, it) })
	g.sortLocked()
	g.mu.Unlock()
	if len(done) > 0 {
		if err := g.saveIndex(); err != nil {
			errs = append(errs, err)
		}
		if err := g.saveTrash(); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// EmptyTrash removes every image in the trash for good and returns their entries (their
// thumbnails can go too). An image whose file cannot be removed stays listed.
func (g *Gallery) EmptyTrash() ([]Entry, error) {
	g.opMu.Lock()
	defer g.opMu.Unlock()
	g.mu.RLock()
	items := slices.Clone(g.trashItems)
	g.mu.RUnlock()
	var errs []error
	var gone []Entry
	removed := map[*trashItem]bool{}
	for _, it := range items {
		err := os.Remove(filepath.Join(g.trash, it.Name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("empty the trash: %w", err))
			continue
		}
		removed[it] = true
		gone = append(gone, it.Entry)
	}
	g.mu.Lock()
	g.trashItems = slices.DeleteFunc(g.trashItems, func(it *trashItem) bool { return removed[it] })
	g.mu.Unlock()
	if err := g.saveTrash(); err != nil {
		errs = append(errs, err)
	}
	return gone, errors.Join(errs...)
}
