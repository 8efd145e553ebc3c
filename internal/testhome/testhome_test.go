package testhome

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIsolate: the user's folders move into a temporary folder that remove deletes, and Go's
// build cache stays where it was.
func TestIsolate(t *testing.T) {
	for _, v := range append(append(userVars, goFolders...), rootVar) {
		t.Setenv(v, os.Getenv(v)) // restored after the test
	}
	cacheBefore, _ := os.UserCacheDir()
	goCacheBefore := os.Getenv("GOCACHE")
	remove, err := Isolate()
	if err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	cache, _ := os.UserCacheDir()
	config, _ := os.UserConfigDir()
	tmp := os.TempDir()
	for _, dir := range []string{home, cache, config} {
		if !strings.HasPrefix(dir, tmp) || dir == cacheBefore {
			t.Errorf("%s is not a temporary folder", dir)
		}
	}
	if goCacheBefore == "" && os.Getenv("GOCACHE") != filepath.Join(cacheBefore, "go-build") {
		t.Errorf("GOCACHE %q, want the cache of before", os.Getenv("GOCACHE"))
	}
	Check(t)
	child, err := Isolate() // a child process's: the same home, removed by its parent
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := os.UserHomeDir(); again != home {
		t.Errorf("a child's home %s, want its parent's %s", again, home)
	}
	child()
	if _, err := os.Stat(home); err != nil {
		t.Errorf("the child removed its parent's home: %v", err)
	}
	remove()
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("the temporary home is still there: %v", err)
	}
}
