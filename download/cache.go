package download

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kleinbild/internal/safefile"
)

// CacheDir is huggingface_hub's cache of repositories: $HF_HUB_CACHE, else $HF_HOME/hub,
// else ~/.cache/huggingface/hub.
func CacheDir() string {
	if d := os.Getenv("HF_HUB_CACHE"); d != "" {
		return d
	}
	return filepath.Join(hfHome(), "hub")
}

// CachedSnapshots lists the snapshot folders of repo in the Hugging Face cache (cacheDir, or
// CacheDir() when empty), the one refs/main points to first, then the others newest first.
// Each can be passed to Validate and used as a model folder in place: its files are
// symlinks into the cache's blobs/. It returns nothing when the repository is not cached.
func CachedSnapshots(cacheDir, repo string) []string {
	if cacheDir == "" {
		cacheDir = CacheDir()
	}
	root := filepath.Join(cacheDir, "models--"+strings.ReplaceAll(repo, "/", "--"))
	entries, err := os.ReadDir(filepath.Join(root, "snapshots"))
	if err != nil {
		return nil
	}
	main := ""
	if raw, err := safefile.ReadRegular(filepath.Join(root, "refs", "main"), safefile.MaxConfigBytes); err == nil {
		main = strings.TrimSpace(string(raw))
	}
	type snap struct {
		path string
		main bool
		mod  time.Time
	}
	var snaps []snap
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s := snap{path: filepath.Join(root, "snapshots", e.Name()), main: e.Name() == main}
		if fi, err := e.Info(); err == nil {
			s.mod = fi.ModTime()
		}
		snaps = append(snaps, s)
	}
	slices.SortStableFunc(snaps, func(a, b snap) int {
		if a.main != b.main {
			if a.main {
				return -1
			}
			return 1
		}
		return b.mod.Compare(a.mod)
	})
	out := make([]string, len(snaps))
	for i, s := range snaps {
		out[i] = s.path
	}
	return out
}
