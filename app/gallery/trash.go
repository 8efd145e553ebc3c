package gallery

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// trashVersion is the layout version of the trash's index.
const trashVersion = 1

// trashItem is an image in the trash. Its file there is named "<batch>-<file>", batch being
// the deletion time in Unix nanoseconds (one batch per Delete call), so a file whose index
// record was lost still says when it was deleted.
type trashItem struct {
	Name    string    `json:"name"`
	Batch   string    `json:"batch"`
	Deleted time.Time `json:"deleted"`
	Entry   Entry     `json:"entry"`
}

type trashIndex struct {
	Version int          `json:"version"`
	Items   []*trashItem `json:"items"`
}

// openTrash reads the trash's index, drops records whose file is gone and removes for good
// the images deleted more than keep ago (and stray files of ours as old). It returns the
// entries removed.
func (g *Gallery) openTrash(ctx context.Context, keep time.Duration) ([]Entry, error) {
	if keep <= 0 {
		keep = DefaultKeepTrash
	}
	des, err := os.ReadDir(g.trash)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trash folder: %w", err)
	}
	var idx trashIndex
	raw, err := safefile.ReadRegular(filepath.Join(g.trash, IndexName), maxIndexBytes)
	if err == nil && json.Unmarshal(raw, &idx) != nil || idx.Version != trashVersion {
		idx = trashIndex{} // damaged or missing: the files' names still say when they went
	}
	byName := map[string]*trashItem{}
	for _, it := range idx.Items {
		if it != nil && plainFileName(it.Name) && it.Name != IndexName && byName[it.Name] == nil {
			byName[it.Name] = it
		}
	}
	cutoff := g.now().Add(-keep)
	var expired []Entry
	var kept []*trashItem
	for _, de := range des {
		if err := ctx.Err(); err != nil {
			return expired, err
		}
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			if !g.readOnly {
				removeStaleTemp(g.trash, de)
			}
			continue
		}
		if name == IndexName || de.IsDir() {
			continue
		}
		it := byName[name]
		if it == nil {
			batch, file, ok := strings.Cut(name, "-")
			ns, err := strconv.ParseInt(batch, 10, 64)
			if !ok || err != nil || file == "" {
				continue // not ours: left alone
			}
			it = &trashItem{Name: name, Batch: batch, Deleted: time.Unix(0, ns), Entry: Entry{File: file}}
		}
		if it.Deleted.Before(cutoff) && !g.readOnly {
			if err := os.Remove(filepath.Join(g.trash, name)); err == nil || errors.Is(err, os.ErrNotExist) {
				expired = append(expired, it.Entry)
				continue
			}
		}
		kept = append(kept, it)
	}
	slices.SortStableFunc(kept, func(a, b *trashItem) int { return a.Deleted.Compare(b.Deleted) })
	g.mu.Lock()
	g.trashItems = kept
	g.mu.Unlock()
	if !g.readOnly && (len(expired) > 0 || len(kept) != len(idx.Items)) {
		if err := g.saveTrash(); err != nil {
			return expired, err
		}
	}
	return expired, nil
}

// saveTrash writes the trash's index atomically.
func (g *Gallery) saveTrash() error {
	g.saveMu.Lock()
	defer g.saveMu.Unlock()
	g.mu.RLock()
	raw, err := json.Marshal(trashIndex{Version: trashVersion, Items: g.trashItems})
	g.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("trash index: %w", err)
	}
	if err := os.MkdirAll(g.trash, 0o755); err != nil {
		return fmt.Errorf("trash folder: %w", err)
	}
	return atomicfile.WriteAtomic(filepath.Join(g.trash, IndexName), func(w *bufio.Writer) error {
		_, err := w.Write(raw)
		return err
	})
}

// TrashLen is the number of images in the trash.
func (g *Gallery) TrashLen() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.trashItems)
}

// Delete moves image files into the trash with their entries and returns the batch that
// Restore takes to bring them back ("" when no file went to the trash). Each file must be a plain file name in the gallery
// folder ("." , "..", paths, hidden files and the index are refused, and then nothing is
// deleted), naming a file or symlink (not a folder) or nothing (its entry just goes).
func (g *Gallery) Delete(files ...string) (batch string, err error) {
	if err := g.refuseReadOnly("delete"); err != nil {
		return "", err
	}
	for _, file := range files {
		if !plainFileName(file) || file == IndexName {
			return "", fmt.Errorf("delete: %q is not a gallery file", file)
		}
		if fi, err := os.Lstat(filepath.Join(g.dir, file)); err == nil && fi.IsDir() {
			return "", fmt.Errorf("delete: %q is a folder, not a gallery file", file)
		}
	}
	g.opMu.Lock()
	defer g.opMu.Unlock()
	if err := os.MkdirAll(g.trash, 0o755); err != nil {
		return "", fmt.Errorf("delete: trash folder: %w", err)
	}
	now := g.now()
	ns := max(now.UnixNano(), g.lastBatch+1)
	g.lastBatch = ns
	batch = strconv.FormatInt(ns, 10)

	var errs []error
	var moved []string
	for _, file := range slices.Compact(slices.Clone(files)) {
		src := filepath.Join(g.dir, file)
		if _, err := os.Lstat(src); errors.Is(err, os.ErrNotExist) {
			moved = append(moved, file) // gone already: only the entry goes
			continue
		}
		it := &trashItem{Name: batch + "-" + file, Batch: batch, Deleted: now, Entry: Entry{File: file}}
		if e, ok := g.ByFile(file); ok {
			it.Entry = e
		}
		if err := os.Rename(src, filepath.Join(g.trash, it.Name)); err != nil {
			errs = append(errs, fmt.Errorf("move %s to the trash: %w", file, err))
			continue
		}
		moved = append(moved, file)
		g.mu.Lock()
		g.trashItems = append(g.trashItems, it)
		g.mu.Unlock()
	}
	gone := make(map[string]bool, len(moved))
	g.mu.Lock()
	for _, file := range moved {
		gone[file] = true
		delete(g.byFile, file)
	}
	g.items = slices.DeleteFunc(g.items, func(e *Entry) bool { return gone[e.File] })
	g.mu.Unlock()
	// The trash's record first: a crash between the two writes leaves the image in the
	// trash with its entry, and the gallery drops its entry on the next start anyway.
	if err := g.saveTrash(); err != nil {
		errs = append(errs, err)
	}
	if err := g.saveIndex(); err != nil {
		errs = append(errs, err)
	}
	g.mu.RLock()
	if len(g.trashItems) == 0 || g.trashItems[len(g.trashItems)-1].Batch != batch {
		batch = ""
	}
	g.mu.RUnlock()
	return batch, errors.Join(errs...)
}

// Restore brings the images of a Delete batch back from the trash, with their entries
// (favourites included), and returns them. An image whose name has been taken meanwhile
// comes back under a new name.
func (g *Gallery) Restore(batch string) ([]Entry, error) {
	if err := g.refuseReadOnly("restore"); err != nil {
		return nil, err
	}
	g.opMu.Lock()
	defer g.opMu.Unlock()
	g.mu.RLock()
	var items []*trashItem
	for _, it := range g.trashItems {
		if it.Batch == batch {
			items = append(items, it)
		}
	}
	g.mu.RUnlock()
	if len(items) == 0 {
		return nil, errors.New("nothing to restore: the images are no longer in the trash")
	}
	out, done, errs := g.restoreAll(items)
	g.mu.Lock()
	g.trashItems = slices.DeleteFunc(g.trashItems, func(it *trashItem) bool { return it.Batch == batch && slices.Contains(done, it) })
	g.sortLocked()
	g.mu.Unlock()
	if err := g.saveIndex(); err != nil {
		errs = append(errs, err)
	}
	if err := g.saveTrash(); err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// restoreItem moves one image back and records its entry; the caller sorts and saves.
func (g *Gallery) restoreItem(it *trashItem) (Entry, error) {
	name := it.Entry.File
	if !plainFileName(name) || !strings.EqualFold(filepath.Ext(name), ".png") {
		name = it.Name + ".png"
	}
	if _, taken := g.ByFile(name); taken || !isAbsent(filepath.Join(g.dir, name)) {
		ext := filepath.Ext(name)
		free, err := g.freeName(strings.TrimSuffix(name, ext)+"-restored", ext)
		if err != nil {
			return Entry{}, err
		}
		name = free
	}
	dst := filepath.Join(g.dir, name)
	if err := os.Rename(filepath.Join(g.trash, it.Name), dst); err != nil {
		return Entry{}, fmt.Errorf("restore %s: %w", it.Entry.File, err)
	}
	e := it.Entry
	e.File = name
	fi, err := os.Lstat(dst)
	if err != nil {
		return Entry{}, fmt.Errorf("restore %s: %w", name, err)
	}
	if e.SHA256 == "" || e.Size != fi.Size() || e.ModTime != fi.ModTime().UnixNano() {
		fresh, err := readEntry(g.dir, name, fi)
		if err != nil {
			return Entry{}, fmt.Errorf("restore %s: %w", name, err)
		}
		fresh.Favourite = e.Favourite
		e = *fresh
	}
	g.mu.Lock()
	g.insertLocked(&e)
	out := e
	g.mu.Unlock()
	return out, nil
}

func isAbsent(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist)
}

// restoreAll restores items one by one: the entries and items that came back, and the
// errors of those that did not.
func (g *Gallery) restoreAll(items []*trashItem) (out []Entry, done []*trashItem, errs []error) {
	for _, it := range items {
		e, err := g.restoreItem(it)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done = append(done, it)
		out = append(out, e)
	}
	return out, done, errs
}
