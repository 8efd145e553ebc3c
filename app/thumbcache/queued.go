package thumbcache

import "image"

// Queued lists the keys of the requests waiting for a worker, in the order the workers take
// them (the most recent request first).
func (t *Thumbnailer) Queued() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.queue))
	for i := len(t.queue) - 1; i >= 0; i-- {
		out = append(out, t.queue[i].key)
	}
	return out
}

// Cached returns the thumbnail under key when it is in memory, without queuing any work.
func (t *Thumbnailer) Cached(key string) (image.Image, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mem.get(key)
}
