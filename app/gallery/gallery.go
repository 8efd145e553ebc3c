// Package gallery stores Kleinbild's saved generations: a folder of PNGs (each carrying its
// prompt and settings as metadata) with an index of them, a trash that deleted images go to
// until they are restored or expire, favourites, and search by prompt. It has no UI.
package gallery

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
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// indexVersion is bumped whenever the index layout changes; an index of another version is
// rebuilt from the PNGs. (Fields added with omitempty, such as favourite, keep the version.)
const indexVersion = 1

// maxIndexBytes bounds the index file read at start (it holds every image's metadata; a
// larger one is rebuilt from the PNGs).
const maxIndexBytes = 256 << 20

// IndexName is the gallery's index file. It caches the PNGs' metadata (the PNGs are the
// truth) and holds what only the gallery knows: which images are favourites.
const IndexName = "index.json"

// DefaultKeepTrash is how long deleted images stay in the trash.
const DefaultKeepTrash = 30 * 24 * time.Hour

// Entry is one image of the gallery.
type Entry struct {
	// File is the base name inside the gallery folder.
	File    string `json:"file"`
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	// HasMeta is false for PNGs without Kleinbild metadata (copied in by hand).
	HasMeta bool             `json:"has_meta"`
	Meta    imageio.Metadata `json:"meta"`
	// Favourite is set when the user starred the image.
	Favourite bool `json:"favourite,omitempty"`

	// search is the lower-cased prompt and adapter file names that Find matches.
	search string
}

// Created is the entry's sort time: its creation time, or the file's time without metadata.
func (e *Entry) Created() time.Time {
	if e.HasMeta && !e.Meta.Created.IsZero() {
		return e.Meta.Created
	}
	return time.Unix(0, e.ModTime)
}

// index is the layout of index.json.
type index struct {
	Version int      `json:"version"`
	Entries []*Entry `json:"entries"`
}

// Report says what opening the gallery had to repair or clean up.
type Report struct {
	// Rebuilt says the index was missing, damaged or stale and was rebuilt from the PNGs.
	Rebuilt bool
	Reason  string
	// Unreadable lists PNGs that could not be read.
	Unreadable []string
	// Expired are the images removed from the trash for good because they were older than
	// Options.KeepTrash (their thumbnails can go too).
	Expired []Entry
}

// Options configure Open.
type Options struct {
	// TrashDir is the folder deleted images are moved to; "" means ".trash" inside the
	// gallery folder. It should be on the same file system as the gallery.
	TrashDir string
	// KeepTrash is how long deleted images are kept; 0 means DefaultKeepTrash.
	KeepTrash time.Duration
	// Now is the clock for trash times; nil means time.Now.
	Now func() time.Time
	// ReadOnly opens the gallery for browsing only: Open reconciles the index with the PNGs
	// in memory but writes, creates and removes nothing (no index or trash index save, no
	// stale temporaries removed, nothing expired from the trash), and Add, Delete, Restore
	// and the favourite setters fail with ErrReadOnly. For a second window on a data folder
	// that another one holds.
	ReadOnly bool
}

// ErrReadOnly is matched (errors.Is) by the error of a change to a gallery opened with
// Options.ReadOnly.
var ErrReadOnly = errors.New("the gallery is open read-only")

// Gallery is the folder of saved generations with its index and trash. It is safe for
// concurrent use; methods that change it do file IO and belong off the UI goroutine.
type Gallery struct {
	dir   string
	trash string
	now   func() time.Time
	// readOnly is Options.ReadOnly: nothing is written.
	readOnly bool

	mu     sync.RWMutex // guards items, byFile and trashItems
	items  []*Entry     // newest first
	byFile map[string]*Entry
	// trashItems are the images in the trash, oldest first.
	trashItems []*trashItem
	lastBatch  int64

	opMu   sync.Mutex // serialises changes (Add, Delete, Restore, SetFavourite)
	saveMu sync.Mutex // serialises index writes
}

// Open opens (creating if needed) the gallery folder dir, reads its index and reconciles
// it with the PNGs on disk: files added or changed behind its back are read, files gone
// are dropped, a missing or damaged index is rebuilt from the PNGs' metadata. It then
// empties the trash of images older than opts.KeepTrash.
func Open(ctx context.Context, dir string, opts Options) (*Gallery, Report, error) {
	var rep Report
	if !opts.ReadOnly {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, rep, fmt.Errorf("gallery folder: %w", err)
		}
	}
	g := &Gallery{dir: dir, trash: opts.TrashDir, now: opts.Now, byFile: map[string]*Entry{}, readOnly: opts.ReadOnly}
	if g.trash == "" {
		g.trash = filepath.Join(dir, ".trash")
	}
	if g.now == nil {
		g.now = time.Now
	}
	known := map[string]*Entry{}
	raw, err := safefile.ReadRegular(filepath.Join(dir, IndexName), maxIndexBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		rep.Reason = "no index"
	case err != nil:
		rep.Reason = err.Error()
	default:
		var idx index
		if err := json.Unmarshal(raw, &idx); err != nil {
			rep.Reason = "index damaged: " + err.Error()
		} else if idx.Version != indexVersion {
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
	if opts.ReadOnly && errors.Is(err, os.ErrNotExist) {
		return g, rep, nil // nothing saved yet: an empty gallery, and no folder made
	}
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
			if !g.readOnly {
				removeStaleTemp(dir, de)
			}
			continue
		}
		if de.IsDir() || !strings.EqualFold(filepath.Ext(name), ".png") {
			continue
		}
		fi, err := de.Info()
		if err != nil || !regularOrLink(dir, name, fi) {
			continue
		}
		e := known[name]
		if e != nil && e.Size == fi.Size() && e.ModTime == fi.ModTime().UnixNano() && e.SHA256 != "" {
			g.insertLocked(e)
			continue
		}
		changed = true
		ne, err := readEntry(dir, name, fi)
		if err != nil {
			rep.Unreadable = append(rep.Unreadable, name)
			continue
		}
		if e != nil {
			ne.Favourite = e.Favourite // the file changed, the user's star stays
		}
		g.insertLocked(ne)
	}
	if len(known) != len(g.items) {
		changed = true
	}
	g.sortLocked()
	if changed && !g.readOnly {
		if err := g.saveIndex(); err != nil {
			return g, rep, err
		}
	}
	expired, err := g.openTrash(ctx, opts.KeepTrash)
	rep.Expired = expired
	if err != nil {
		return g, rep, err
	}
	return g, rep, nil
}

// regularOrLink reports whether fi (of name in dir) is a regular file or a symlink to one:
// a FIFO, device or socket named *.png would block or never end a read.
func regularOrLink(dir, name string, fi fs.FileInfo) bool {
	if fi.Mode().IsRegular() {
		return true
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, name))
	return err == nil && st.Mode().IsRegular()
}

// removeStaleTemp deletes leftovers of atomic writes interrupted by a crash: hidden
// temporaries of atomicfile's atomic writers (named with atomicfile.TempMarker) older than a minute
// (younger ones may belong to a running write). A user's own ".x.tmp-1" files are kept.
func removeStaleTemp(dir string, de os.DirEntry) {
	if !atomicfile.IsTemp(de.Name()) || de.IsDir() {
		return
	}
	if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
		os.Remove(filepath.Join(dir, de.Name()))
	}
}

// readEntry reads the metadata and hash of one PNG.
func readEntry(dir, name string, fi os.FileInfo) (*Entry, error) {
	path := filepath.Join(dir, name)
	meta, ok, err := imageio.ReadMetadata(path)
	if err != nil {
		return nil, err
	}
	sum, err := imageio.SHA256File(path)
	if err != nil {
		return nil, err
	}
	return &Entry{File: name, SHA256: sum, Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), HasMeta: ok, Meta: meta}, nil
}

// insertLocked adds e (or updates the entry of its file); the caller sorts afterwards.
func (g *Gallery) insertLocked(e *Entry) {
	e.search = searchText(e.Meta)
	if old := g.byFile[e.File]; old != nil {
		*old = *e
		return
	}
	g.byFile[e.File] = e
	g.items = append(g.items, e)
}

func (g *Gallery) sortLocked() {
	slices.SortStableFunc(g.items, func(a, b *Entry) int {
		if c := b.Created().Compare(a.Created()); c != 0 {
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
func (g *Gallery) saveIndex() error {
	g.saveMu.Lock()
	defer g.saveMu.Unlock()
	g.mu.RLock()
	raw, err := json.Marshal(index{Version: indexVersion, Entries: g.items})
	g.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("gallery index: %w", err)
	}
	return atomicfile.WriteAtomic(filepath.Join(g.dir, IndexName), func(w *bufio.Writer) error {
		_, err := w.Write(raw)
		return err
	})
}

// Dir is the gallery folder.
func (g *Gallery) Dir() string { return g.dir }

// ReadOnly reports whether the gallery was opened with Options.ReadOnly.
func (g *Gallery) ReadOnly() bool { return g.readOnly }

// refuseReadOnly is ErrReadOnly, naming what (an action), for a read-only gallery.
func (g *Gallery) refuseReadOnly(what string) error {
	if g.readOnly {
		return fmt.Errorf("%s: %w", what, ErrReadOnly)
	}
	return nil
}

// TrashDir is the folder deleted images wait in.
func (g *Gallery) TrashDir() string { return g.trash }

// Path is the full path of an entry's file.
func (g *Gallery) Path(e Entry) string { return filepath.Join(g.dir, e.File) }

// Len is the number of images.
func (g *Gallery) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.items)
}

// At returns the i-th image, newest first.
func (g *Gallery) At(i int) (Entry, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if i < 0 || i >= len(g.items) {
		return Entry{}, false
	}
	return *g.items[i], true
}

// ByFile returns the entry of the file name file.
func (g *Gallery) ByFile(file string) (Entry, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if e := g.byFile[file]; e != nil {
		return *e, true
	}
	return Entry{}, false
}

// IndexOf returns the position of file, or -1.
func (g *Gallery) IndexOf(file string) int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.byFile[file] == nil {
		return -1
	}
	for i, e := range g.items {
		if e.File == file {
			return i
		}
	}
	return -1
}

// ByPath returns the entry whose file is path, if path lies in the gallery.
func (g *Gallery) ByPath(path string) (Entry, bool) {
	if filepath.Dir(filepath.Clean(path)) != filepath.Clean(g.dir) {
		return Entry{}, false
	}
	return g.ByFile(filepath.Base(path))
}

// ByHash returns the newest entry whose content hash is sum.
func (g *Gallery) ByHash(sum string) (Entry, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, e := range g.items {
		if e.SHA256 == sum {
			return *e, true
		}
	}
	return Entry{}, false
}

// Parents are the gallery images used as references for e (or repainted by it).
func (g *Gallery) Parents(e Entry) []Entry {
	var out []Entry
	for _, r := range e.Meta.Sources() {
		if p, ok := g.ByHash(r.SHA256); ok && r.SHA256 != "" {
			out = append(out, p)
		}
	}
	return out
}

// Children are the gallery images that used e as a reference (or repainted it).
func (g *Gallery) Children(e Entry) []Entry {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []Entry
	for _, c := range g.items {
		for _, r := range c.Meta.Sources() {
			if r.SHA256 == e.SHA256 && e.SHA256 != "" {
				out = append(out, *c)
				break
			}
		}
	}
	return out
}

// Add saves img with meta as a new PNG (atomically), records it and saves the index. The
// image is durable once Add returns, even if the index write then fails.
func (g *Gallery) Add(img image.Image, meta imageio.Metadata) (Entry, error) {
	if err := g.refuseReadOnly("save to gallery"); err != nil {
		return Entry{}, err
	}
	g.opMu.Lock()
	defer g.opMu.Unlock()
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	base := "kleinbild-" + meta.Created.Local().Format("20060102-150405") + "-" + strconv.FormatUint(meta.Seed, 10)
	name, err := g.freeName(base, ".png")
	if err != nil {
		return Entry{}, err
	}
	path := filepath.Join(g.dir, name)
	if err := imageio.WritePNG(path, img, meta); err != nil {
		return Entry{}, fmt.Errorf("save to gallery: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Entry{}, fmt.Errorf("save to gallery: %w", err)
	}
	sum, err := imageio.SHA256File(path)
	if err != nil {
		return Entry{}, fmt.Errorf("save to gallery: %w", err)
	}
	e := &Entry{File: name, SHA256: sum, Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), HasMeta: true, Meta: meta}
	g.mu.Lock()
	g.insertLocked(e)
	g.sortLocked()
	out := *e
	g.mu.Unlock()
	if err := g.saveIndex(); err != nil {
		return out, fmt.Errorf("image saved as %s, but the gallery index could not be updated (it is rebuilt on the next start): %w", path, err)
	}
	return out, nil
}

// freeName picks an unused file name base+ext, base-2+ext, … in the gallery folder.
func (g *Gallery) freeName(base, ext string) (string, error) {
	for i := 1; i < 1000; i++ {
		name := base + ext
		if i > 1 {
			name = base + "-" + strconv.Itoa(i) + ext
		}
		g.mu.RLock()
		_, taken := g.byFile[name]
		g.mu.RUnlock()
		if _, err := os.Lstat(filepath.Join(g.dir, name)); !taken && errors.Is(err, os.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("no free file name for %s in %s", base+ext, g.dir)
}

// SetFavourite stars (on) or unstars the image file and saves the index.
func (g *Gallery) SetFavourite(file string, on bool) (Entry, error) {
	return g.setFavourite(file, func(bool) bool { return on })
}

// ToggleFavourite stars the image file if it is not starred and unstars it if it is.
func (g *Gallery) ToggleFavourite(file string) (Entry, error) {
	return g.setFavourite(file, func(was bool) bool { return !was })
}

func (g *Gallery) setFavourite(file string, to func(was bool) bool) (Entry, error) {
	if err := g.refuseReadOnly("favourite"); err != nil {
		return Entry{}, err
	}
	g.opMu.Lock()
	defer g.opMu.Unlock()
	g.mu.Lock()
	e := g.byFile[file]
	if e == nil {
		g.mu.Unlock()
		return Entry{}, fmt.Errorf("%s is no longer in the gallery", file)
	}
	e.Favourite = to(e.Favourite)
	out := *e
	g.mu.Unlock()
	if err := g.saveIndex(); err != nil {
		return out, fmt.Errorf("the favourite could not be saved: %w", err)
	}
	return out, nil
}

// plainFileName reports whether name is a single, visible file name: not empty, ".", "..",
// a hidden name or anything with a path separator or volume.
func plainFileName(name string) bool {
	return name != "" && !strings.HasPrefix(name, ".") && filepath.Base(name) == name &&
		!strings.ContainsAny(name, `/\`) && filepath.VolumeName(name) == "" && filepath.IsLocal(name)
}
