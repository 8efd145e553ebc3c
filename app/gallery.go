package app

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/internal/safefile"
	"kleinbild/weights"
)

// galleryIndexVersion is bumped whenever the index layout changes; an index of another
// version is rebuilt from the PNGs.
const galleryIndexVersion = 1

// maxGalleryIndexBytes bounds the index file read at start (it holds every image's
// metadata; a larger one is rebuilt from the PNGs).
const maxGalleryIndexBytes = 256 << 20

// galleryIndexName is the gallery's index file. It is only a cache: the PNGs and their
// metadata are the truth.
const galleryIndexName = "index.json"

// galleryEntry is one image of the gallery.
type galleryEntry struct {
	// File is the base name inside the gallery folder.
	File    string `json:"file"`
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	// HasMeta is false for PNGs without Kleinbild metadata (copied in by hand).
	HasMeta bool             `json:"has_meta"`
	Meta    imageio.Metadata `json:"meta"`
}

// created is the entry's sort time.
func (e *galleryEntry) created() time.Time {
	if e.HasMeta && !e.Meta.Created.IsZero() {
		return e.Meta.Created
	}
	return time.Unix(0, e.ModTime)
}

type galleryIndex struct {
	Version int             `json:"version"`
	Entries []*galleryEntry `json:"entries"`
}

// galleryLoad reports what opening the gallery had to repair.
type galleryLoad struct {
	// Rebuilt says the index was missing, damaged or stale and was rebuilt from the PNGs.
	Rebuilt bool
	Reason  string
	// Unreadable lists PNGs that could not be read.
	Unreadable []string
}

// gallery is the folder of saved generations with its index. It is safe for concurrent use.
type gallery struct {
	dir    string
	mu     sync.RWMutex
	items  []*galleryEntry // newest first
	byFile map[string]*galleryEntry
	saveMu sync.Mutex
}

// openGallery opens (creating if needed) the gallery folder dir, reads its index and
// reconciles it with the PNGs on disk: files added or changed behind its back are read,
// files gone are dropped, a missing or damaged index is rebuilt from the PNGs' metadata.
func openGallery(ctx context.Context, dir string) (*gallery, galleryLoad, error) {
	var rep galleryLoad
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, rep, fmt.Errorf("gallery folder: %w", err)
	}
	g := &gallery{dir: dir, byFile: map[string]*galleryEntry{}}
	known := map[string]*galleryEntry{}
	raw, err := safefile.ReadRegular(filepath.Join(dir, galleryIndexName), maxGalleryIndexBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		rep.Reason = "no index"
	case err != nil:
		rep.Reason = err.Error()
	default:
		var idx galleryIndex
		if err := json.Unmarshal(raw, &idx); err != nil {
			rep.Reason = "index damaged: " + err.Error()
		} else if idx.Version != galleryIndexVersion {
			rep.Reason = fmt.Sprintf("index version %d", idx.Version)
		} else {
			for _, e := range idx.Entries {
				if e != nil && e.File != "" {
					known[e.File] = e
				}
			}
		}
	}
	rep.Rebuilt = rep.Reason != ""

	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, rep, fmt.Errorf("gallery folder: %w", err)
	}
	changed := rep.Rebuilt
	for _, de := range des {
		if err := ctx.Err(); err != nil {
			return nil, rep, err
		}
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			removeStaleTemp(dir, de)
			continue
		}
		if de.IsDir() || !strings.EqualFold(filepath.Ext(name), ".png") {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue
		}
		if !fi.Mode().IsRegular() {
			// A FIFO, device or socket named *.png would block or never end the scan;
			// a symlink counts if it leads to a regular file.
			if fi.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			if st, err := os.Stat(filepath.Join(dir, name)); err != nil || !st.Mode().IsRegular() {
				continue
			}
		}
		if e := known[name]; e != nil && e.Size == fi.Size() && e.ModTime == fi.ModTime().UnixNano() && e.SHA256 != "" {
			g.insertLocked(e)
			continue
		}
		changed = true
		e, err := readGalleryEntry(dir, name, fi)
		if err != nil {
			rep.Unreadable = append(rep.Unreadable, name)
			continue
		}
		g.insertLocked(e)
	}
	if len(known) != len(g.items) {
		changed = true
	}
	g.sortLocked()
	if changed {
		if err := g.saveIndex(); err != nil {
			return g, rep, err
		}
	}
	return g, rep, nil
}

// removeStaleTemp deletes leftovers of atomic writes interrupted by a crash: hidden
// ".name.tmp-*" files older than a minute (younger ones may belong to a running write).
func removeStaleTemp(dir string, de os.DirEntry) {
	if !strings.Contains(de.Name(), ".tmp-") || de.IsDir() {
		return
	}
	if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
		os.Remove(filepath.Join(dir, de.Name()))
	}
}

// readGalleryEntry reads the metadata and hash of one PNG.
func readGalleryEntry(dir, name string, fi os.FileInfo) (*galleryEntry, error) {
	path := filepath.Join(dir, name)
	meta, ok, err := imageio.ReadMetadata(path)
	if err != nil {
		return nil, err
	}
	sum, err := imageio.SHA256File(path)
	if err != nil {
		return nil, err
	}
	return &galleryEntry{File: name, SHA256: sum, Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), HasMeta: ok, Meta: meta}, nil
}

func (g *gallery) insertLocked(e *galleryEntry) {
	if old := g.byFile[e.File]; old != nil {
		*old = *e
		return
	}
	g.byFile[e.File] = e
	g.items = append(g.items, e)
}

func (g *gallery) sortLocked() {
	slices.SortStableFunc(g.items, func(a, b *galleryEntry) int {
		if c := b.created().Compare(a.created()); c != 0 {
			return c
		}
		// Metadata times have whole seconds: the file times order images of one second.
		if c := cmp.Compare(b.ModTime, a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(b.File, a.File)
	})
}

// saveIndex writes the index atomically. Saves are serialised; each writes the state at
// the time it runs.
func (g *gallery) saveIndex() error {
	g.saveMu.Lock()
	defer g.saveMu.Unlock()
	g.mu.RLock()
	raw, err := json.Marshal(galleryIndex{Version: galleryIndexVersion, Entries: g.items})
	g.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("gallery index: %w", err)
	}
	return weights.WriteAtomic(filepath.Join(g.dir, galleryIndexName), func(w *bufio.Writer) error {
		_, err := w.Write(raw)
		return err
	})
}

// Dir is the gallery folder.
func (g *gallery) Dir() string { return g.dir }

// Path is the full path of an entry's file.
func (g *gallery) Path(e galleryEntry) string { return filepath.Join(g.dir, e.File) }

// Len is the number of images.
func (g *gallery) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.items)
}

// At returns the i-th image, newest first.
func (g *gallery) At(i int) (galleryEntry, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if i < 0 || i >= len(g.items) {
		return galleryEntry{}, false
	}
	return *g.items[i], true
}

// IndexOf returns the position of file, or -1.
func (g *gallery) IndexOf(file string) int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for i, e := range g.items {
		if e.File == file {
			return i
		}
	}
	return -1
}

// ByPath returns the entry whose file is path, if path lies in the gallery.
func (g *gallery) ByPath(path string) (galleryEntry, bool) {
	if filepath.Dir(filepath.Clean(path)) != filepath.Clean(g.dir) {
		return galleryEntry{}, false
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	if e := g.byFile[filepath.Base(path)]; e != nil {
		return *e, true
	}
	return galleryEntry{}, false
}

// ByHash returns the newest entry whose content hash is sum.
func (g *gallery) ByHash(sum string) (galleryEntry, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, e := range g.items {
		if e.SHA256 == sum {
			return *e, true
		}
	}
	return galleryEntry{}, false
}

// Parents are the gallery images used as references for e.
func (g *gallery) Parents(e galleryEntry) []galleryEntry {
	var out []galleryEntry
	for _, r := range e.Meta.References {
		if p, ok := g.ByHash(r.SHA256); ok && r.SHA256 != "" {
			out = append(out, p)
		}
	}
	return out
}

// Children are the gallery images that used e as a reference.
func (g *gallery) Children(e galleryEntry) []galleryEntry {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []galleryEntry
	for _, c := range g.items {
		for _, r := range c.Meta.References {
			if r.SHA256 == e.SHA256 && e.SHA256 != "" {
				out = append(out, *c)
				break
			}
		}
	}
	return out
}

// Add saves img with meta as a new PNG (atomically), records it at the front and saves the
// index. The image is durable once Add returns, even if the index write then fails.
func (g *gallery) Add(img image.Image, meta imageio.Metadata) (galleryEntry, error) {
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	name, err := g.freeName(meta.Created, meta.Seed)
	if err != nil {
		return galleryEntry{}, err
	}
	path := filepath.Join(g.dir, name)
	if err := imageio.WritePNG(path, img, meta); err != nil {
		return galleryEntry{}, fmt.Errorf("save to gallery: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return galleryEntry{}, fmt.Errorf("save to gallery: %w", err)
	}
	sum, err := imageio.SHA256File(path)
	if err != nil {
		return galleryEntry{}, fmt.Errorf("save to gallery: %w", err)
	}
	e := &galleryEntry{File: name, SHA256: sum, Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), HasMeta: true, Meta: meta}
	g.mu.Lock()
	g.byFile[name] = e
	g.items = append([]*galleryEntry{e}, g.items...)
	g.sortLocked()
	g.mu.Unlock()
	if err := g.saveIndex(); err != nil {
		return *e, fmt.Errorf("image saved as %s, but the gallery index could not be updated (it is rebuilt on the next start): %w", path, err)
	}
	return *e, nil
}

// freeName picks an unused file name from the creation time and seed.
func (g *gallery) freeName(t time.Time, seed uint64) (string, error) {
	base := "kleinbild-" + t.Local().Format("20060102-150405") + "-" + strconv.FormatUint(seed, 10)
	for i := 1; i < 1000; i++ {
		name := base + ".png"
		if i > 1 {
			name = base + "-" + strconv.Itoa(i) + ".png"
		}
		g.mu.RLock()
		_, taken := g.byFile[name]
		g.mu.RUnlock()
		if _, err := os.Lstat(filepath.Join(g.dir, name)); !taken && errors.Is(err, os.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("no free file name for %s in %s", base, g.dir)
}

// Delete removes an image file and its entry. file must be a plain file name in the
// gallery folder ("." , "..", paths, hidden files and the index are refused), naming a
// file or symlink (not a folder) or nothing.
func (g *gallery) Delete(file string) error {
	if !plainFileName(file) || file == galleryIndexName {
		return fmt.Errorf("delete: %q is not a gallery file", file)
	}
	if fi, err := os.Lstat(filepath.Join(g.dir, file)); err == nil && fi.IsDir() {
		return fmt.Errorf("delete: %q is a folder, not a gallery file", file)
	}
	if err := os.Remove(filepath.Join(g.dir, file)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", file, err)
	}
	g.mu.Lock()
	delete(g.byFile, file)
	g.items = slices.DeleteFunc(g.items, func(e *galleryEntry) bool { return e.File == file })
	g.mu.Unlock()
	return g.saveIndex()
}

// plainFileName reports whether name is a single, visible file name: not empty, ".", "..",
// a hidden name or anything with a path separator or volume.
func plainFileName(name string) bool {
	return name != "" && !strings.HasPrefix(name, ".") && filepath.Base(name) == name &&
		!strings.ContainsAny(name, `/\`) && filepath.VolumeName(name) == "" && filepath.IsLocal(name)
}
