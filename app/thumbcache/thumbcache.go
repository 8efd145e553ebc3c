// Package thumbcache makes and keeps image thumbnails: a memory LRU in front of PNG files in
// a cache folder, filled off the UI goroutine by a few workers.
package thumbcache

import (
	"bufio"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"kleinbild/engine/imageio"
	"kleinbild/internal/atomicfile"
)

// Side is the longest side of a gallery thumbnail in pixels (enough for 2× HiDPI grid cells).
const Side = 256

// ErrDropped is passed to requests dropped from an overfull queue (usually for cells
// scrolled out of view long ago); the cell asks again when it is shown again.
var ErrDropped = errors.New("thumbnail request dropped")

type thumbJob struct{ key, src string }

// waiter is one request's callback; Cancel takes it out.
type waiter struct{ done func(image.Image, error) }

// Thumbnailer makes thumbnails off the UI goroutine: a memory LRU in front of PNG files in
// a cache folder, filled by a few workers that take the most recent requests first (those
// are the cells on screen). Callbacks run on a worker goroutine.
type Thumbnailer struct {
	dir  string
	side int
	// readOnly: the cache folder is read, never written or cleaned (see NewReadOnly).
	readOnly bool

	mu       sync.Mutex
	cond     *sync.Cond
	mem      *imageLRU
	waiting  map[string][]*waiter
	queue    []thumbJob
	maxQueue int
	paused   bool
	closed   bool
	wg       sync.WaitGroup
}

// New starts workers over the cache folder dir making thumbnails of at most side pixels,
// keeping up to memBytes of decoded thumbnails in memory.
func New(dir string, side, workers int, memBytes int64) *Thumbnailer {
	t := &Thumbnailer{dir: dir, side: side, mem: newImageLRU(memBytes), waiting: map[string][]*waiter{}, maxQueue: 512}
	t.cond = sync.NewCond(&t.mu)
	for range max(1, workers) {
		t.wg.Add(1)
		go t.work()
	}
	return t
}

// NewReadOnly is New for a cache folder this process must not change (a read-only window on
// a data folder another one holds): cached thumbnails are read from dir, new ones are kept
// in memory only, and nothing there is written or removed.
func NewReadOnly(dir string, side, workers int, memBytes int64) *Thumbnailer {
	t := New(dir, side, workers, memBytes)
	t.readOnly = true
	return t
}

// FileKey is a cache key for a file outside the gallery: its path, size and time.
func FileKey(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(path + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)))
	return "f" + hex.EncodeToString(h[:16]), nil
}

// Get returns the thumbnail of src under key when it is in memory. Otherwise it returns
// false and queues the work: done later runs with the thumbnail on a worker goroutine.
func (t *Thumbnailer) Get(key, src string, done func(image.Image, error)) (image.Image, bool) {
	img, ok, _ := t.Request(key, src, done)
	return img, ok
}

// Request is Get that also returns a cancel function for a queued request (nil when the
// thumbnail was in memory): cancel drops done, and the work itself when no other request
// waits for it and no worker has started it (a grid cell recycled for another image).
func (t *Thumbnailer) Request(key, src string, done func(image.Image, error)) (img image.Image, ok bool, cancel func()) {
	t.mu.Lock()
	if img, ok := t.mem.get(key); ok {
		t.mu.Unlock()
		return img, true, nil
	}
	if t.closed {
		t.mu.Unlock()
		return nil, false, func() {}
	}
	w := &waiter{done}
	ws, queued := t.waiting[key]
	t.waiting[key] = append(ws, w)
	var dropped []*waiter
	if !queued {
		t.queue = append(t.queue, thumbJob{key, src})
		if len(t.queue) > t.maxQueue {
			old := t.queue[0]
			t.queue = t.queue[1:]
			dropped = t.waiting[old.key]
			delete(t.waiting, old.key)
		}
		t.cond.Signal()
	}
	t.mu.Unlock()
	for _, d := range dropped {
		d.done(nil, ErrDropped)
	}
	return nil, false, func() { t.cancel(key, w) }
}

// cancel takes the request w for key out (see Request).
func (t *Thumbnailer) cancel(key string, w *waiter) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ws, ok := t.waiting[key]
	if !ok {
		return
	}
	ws = slices.DeleteFunc(ws, func(x *waiter) bool { return x == w })
	if len(ws) > 0 {
		t.waiting[key] = ws
		return
	}
	delete(t.waiting, key)
	t.queue = slices.DeleteFunc(t.queue, func(j thumbJob) bool { return j.key == key })
}

// Put stores the thumbnail of a freshly made image (memory and disk) without reading it back.
func (t *Thumbnailer) Put(key string, img image.Image) error {
	th := Downscale(img, t.side)
	t.mu.Lock()
	t.mem.add(key, th)
	t.mu.Unlock()
	return t.writeDisk(key, th)
}

// Remove forgets a thumbnail.
func (t *Thumbnailer) Remove(key string) {
	t.mu.Lock()
	t.mem.remove(key)
	t.mu.Unlock()
	if !t.readOnly {
		os.Remove(t.diskPath(key))
	}
}

// Pause keeps the workers from starting new work until Resume (what is in progress
// finishes); requests still queue and can be cancelled.
func (t *Thumbnailer) Pause() {
	t.mu.Lock()
	t.paused = true
	t.mu.Unlock()
}

// Resume lets the workers take work again after Pause.
func (t *Thumbnailer) Resume() {
	t.mu.Lock()
	t.paused = false
	t.cond.Broadcast()
	t.mu.Unlock()
}

// Close stops the workers; pending requests get an error.
func (t *Thumbnailer) Close() {
	t.mu.Lock()
	t.closed = true
	pending := t.waiting
	t.waiting = map[string][]*waiter{}
	t.queue = nil
	t.cond.Broadcast()
	t.mu.Unlock()
	for _, ws := range pending {
		for _, w := range ws {
			w.done(nil, errors.New("thumbnailer closed"))
		}
	}
	t.wg.Wait()
}

func (t *Thumbnailer) work() {
	defer t.wg.Done()
	for {
		t.mu.Lock()
		for (len(t.queue) == 0 || t.paused) && !t.closed {
			t.cond.Wait()
		}
		if t.closed {
			t.mu.Unlock()
			return
		}
		job := t.queue[len(t.queue)-1]
		t.queue = t.queue[:len(t.queue)-1]
		t.mu.Unlock()

		img, err := t.load(job)

		t.mu.Lock()
		if err == nil {
			t.mem.add(job.key, img)
		}
		ws := t.waiting[job.key]
		delete(t.waiting, job.key)
		t.mu.Unlock()
		for _, w := range ws {
			w.done(img, err)
		}
	}
}

func (t *Thumbnailer) diskPath(key string) string { return filepath.Join(t.dir, key+".png") }

// load reads the cached thumbnail file, or makes it from the source image.
func (t *Thumbnailer) load(job thumbJob) (image.Image, error) {
	// The shared decoder: only a regular file, its header checked against the thumbnail
	// size before any pixel is decoded (a fake 65535×65535 header used to exhaust memory).
	img, err := imageio.LoadChecked(t.diskPath(job.key), func(w, h int) error {
		if w > t.side || h > t.side {
			return fmt.Errorf("%d×%d is larger than a %d px thumbnail", w, h, t.side)
		}
		return nil
	})
	if err == nil {
		return img, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !t.readOnly {
		os.Remove(t.diskPath(job.key)) // damaged or foreign cache file: make it again
	}
	img, err = DecodeFile(job.src)
	if err != nil {
		return nil, err
	}
	th := Downscale(img, t.side)
	// A failing cache write only costs a later re-decode.
	_ = t.writeDisk(job.key, th)
	return th, nil
}

func (t *Thumbnailer) writeDisk(key string, img image.Image) error {
	if t.readOnly {
		return nil // kept in memory only
	}
	if err := os.MkdirAll(t.dir, 0o755); err != nil {
		return fmt.Errorf("thumbnail cache: %w", err)
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return atomicfile.WriteAtomic(t.diskPath(key), func(w *bufio.Writer) error { return enc.Encode(w, img) })
}

// DecodeFile decodes an image file in any format the engine reads.
func DecodeFile(path string) (image.Image, error) {
	img, err := imageio.Load(path)
	if err != nil {
		return nil, fmt.Errorf("cannot show %s: %w", filepath.Base(path), err)
	}
	return img, nil
}

// imageLRU keeps recently used images up to a byte budget. Not safe for concurrent use.
type imageLRU struct {
	budget, used int64
	order        *list.List // front = most recent; values are *lruItem
	items        map[string]*list.Element
}

type lruItem struct {
	key  string
	img  image.Image
	size int64
}

func newImageLRU(budget int64) *imageLRU {
	return &imageLRU{budget: budget, order: list.New(), items: map[string]*list.Element{}}
}

func imageBytes(img image.Image) int64 {
	b := img.Bounds()
	return int64(b.Dx()) * int64(b.Dy()) * 4
}

func (c *imageLRU) get(key string) (image.Image, bool) {
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruItem).img, true
}

func (c *imageLRU) add(key string, img image.Image) {
	c.remove(key)
	it := &lruItem{key: key, img: img, size: imageBytes(img)}
	c.items[key] = c.order.PushFront(it)
	c.used += it.size
	for c.used > c.budget && c.order.Len() > 1 {
		c.remove(c.order.Back().Value.(*lruItem).key)
	}
}

func (c *imageLRU) remove(key string) {
	if el, ok := c.items[key]; ok {
		c.used -= el.Value.(*lruItem).size
		c.order.Remove(el)
		delete(c.items, key)
	}
}

func (c *imageLRU) len() int { return c.order.Len() }
