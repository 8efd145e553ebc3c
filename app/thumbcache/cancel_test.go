package thumbcache

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kleinbild/internal/testfix"
)

// Issue 22 item 10: a cancelled request never calls back and its work is dropped unless a
// worker had already started it; another request for the same key still gets its image.
func TestCancelDropsQueuedWork(t *testing.T) {
	dir := t.TempDir()
	src := testfix.WritePNG(t, dir, "src.png", 64, 48, nil)
	cache := filepath.Join(dir, "thumbs")
	th := New(cache, 32, 1, 1<<20)
	defer th.Close()

	var mu sync.Mutex
	called := map[string]bool{}
	cb := func(key string) func(image.Image, error) {
		return func(image.Image, error) {
			mu.Lock()
			called[key] = true
			mu.Unlock()
		}
	}
	const n = 40
	var cancels []func()
	for i := range n {
		key := fmt.Sprintf("k%02d", i)
		_, _, cancel := th.Request(key, src, cb(key))
		cancels = append(cancels, cancel)
	}
	// Two requests for one key: cancelling one leaves the other.
	_, _, c1 := th.Request("shared", src, cb("shared-1"))
	th.Request("shared", src, cb("shared-2"))
	c1()
	for _, c := range cancels {
		c()
	}
	kept := make(chan struct{})
	th.Get("kept", src, func(image.Image, error) { close(kept) })
	select {
	case <-kept:
	case <-time.After(5 * time.Second):
		t.Fatal("a request after the cancelled ones was not served")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		done := called["shared-2"]
		mu.Unlock()
		if done || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if !called["shared-2"] || called["shared-1"] {
		t.Errorf("shared key: kept request called %v, cancelled one called %v", called["shared-2"], called["shared-1"])
	}
	made := 0
	for i := range n {
		key := fmt.Sprintf("k%02d", i)
		if called[key] {
			t.Errorf("cancelled request %s was called back", key)
		}
		if _, err := os.Stat(filepath.Join(cache, key+".png")); err == nil {
			made++
		}
	}
	// The single worker may have started one job before the cancels.
	if made > 1 {
		t.Errorf("%d cancelled thumbnails were made", made)
	}
}
