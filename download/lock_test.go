package download

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// noted reports whether l holds a progress report whose Note contains s.
func (l *progressLog) noted(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.all {
		if strings.Contains(p.Note, s) {
			return true
		}
	}
	return false
}

// TestConcurrentDownloadsSameFolder: three downloads started at once into one folder all
// succeed, one after the other, leaving the folder complete and only the manifest in the
// state folder (issue 37 item 14: all three failed, with checksum mismatches or vanished
// part files).
func TestConcurrentDownloadsSameFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	files := testRepoFiles(7)
	newFakeHub(t, testRepo, files)
	dir := t.TempDir()
	const n = 3
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Download(context.Background(), testRepo, dir, fastOptions())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("download %d: %v", i, err)
		}
	}
	checkFolder(t, dir, files)
}

// TestDownloadWaitsForFolder: downloads into a folder another download holds each say that
// they wait, then run one after the other and all succeed, leaving only the manifest in the
// state folder.
func TestDownloadWaitsForFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	files := testRepoFiles(7)
	newFakeHub(t, testRepo, files)
	dir := t.TempDir()
	ctx := context.Background()
	unlock, err := lockFolder(ctx, dir, nil) // a download already writing there
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	logs := make([]progressLog, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := fastOptions()
			o.Progress = logs[i].fn
			_, errs[i] = Download(ctx, testRepo, dir, o)
		}()
	}
	for i := range n {
		for deadline := time.Now().Add(time.Minute); !logs[i].noted("another download is writing to"); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("download %d never said it waits", i)
			}
		}
	}
	unlock()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("download %d: %v", i, err)
		}
	}
	checkFolder(t, dir, files)
	entries, err := os.ReadDir(filepath.Join(dir, StateDir))
	if err != nil || len(entries) != 1 || entries[0].Name() != manifestName {
		t.Errorf("state folder after success: %v %v", entries, err)
	}
}

// TestLockWaitCancelled: a download waiting for the folder stops when its context ends,
// saying that another download is writing there.
func TestLockWaitCancelled(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockFolder(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = lockFolder(ctx, dir, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "another download is writing to "+dir) {
		t.Fatalf("wait for a held folder: %v", err)
	}
}

// A download that wrote nothing leaves no state folder behind: the app reads one as a
// partial download and offered "Resume download" after a failed first listing.
func TestUnlockLeavesNoEmptyStateFolder(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockFolder(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if _, err := os.Stat(filepath.Join(dir, StateDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("state folder after an empty download: %v, want it gone", err)
	}
}
