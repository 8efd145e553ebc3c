package webgpu

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// The tuning cache: one JSON file per adapter, driver and limits mode in
// <user cache dir>/kleinbild/tune (Options.CacheDir), named by a hash of that identity and
// holding, per kernel family, the chosen variant and the SourceHash it was tuned for.
// Entries whose hash no longer matches are ignored (the family is tuned again); a file that
// does not parse is ignored as a whole.

// tuneCacheVersion is the format of the cache files.
const tuneCacheVersion = 1

// maxTuneCacheBytes bounds a cache file (a few kilobytes in practice).
const maxTuneCacheBytes = 1 << 20

// TuneCache is the content of one cache file.
type TuneCache struct {
	Version int    `json:"version"`
	Adapter string `json:"adapter"` // adapter, driver and limits identity (cacheKey)
	Name    string `json:"name"`    // adapter name, for people reading the file
	// Families maps a kernel family to its tuned choice.
	Families map[string]CachedFamily `json:"families"`
	// GPUGFLOPS is the device's rate on the tuning's matrix product; CPUGFLOPS the CPU
	// backend's (CPUBackend) on the same product (0: not measured).
	GPUGFLOPS  float64 `json:"gpu_gflops"`
	CPUGFLOPS  float64 `json:"cpu_gflops,omitempty"`
	CPUBackend string  `json:"cpu_backend,omitempty"`
	Shape      string  `json:"shape,omitempty"` // the product measured, "rows×in→out"
	// AttentionGFLOPS and Attention512GFLOPS are the attention families' rates on their
	// tuning workloads (useful FLOPs), FMAGFLOPS the FMA probe's peak: they size dispatches
	// (dispatch.go). 0: not measured.
	AttentionGFLOPS    float64   `json:"attention_gflops,omitempty"`
	Attention512GFLOPS float64   `json:"attention512_gflops,omitempty"`
	FMAGFLOPS          float64   `json:"fma_gflops,omitempty"`
	Tuned              time.Time `json:"tuned"`
}

// CachedFamily is one family's entry of a TuneCache.
type CachedFamily struct {
	Hash    string `json:"hash"`
	Variant string `json:"variant"`
	// Seconds is the time of each variant timed (best run).
	Seconds map[string]float64 `json:"seconds,omitempty"`
}

// DefaultTuneDir is <user cache dir>/kleinbild/tune.
func DefaultTuneDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("webgpu: tuning cache: %w", err)
	}
	return filepath.Join(c, "kleinbild", "tune"), nil
}

// cacheKey is the cache identity of an adapter (its key) in a limits mode.
func cacheKey(adapterKey string, defaultLimits bool) string {
	if defaultLimits {
		return adapterKey + "|default-limits"
	}
	return adapterKey + "|adapter-limits"
}

// cachePath is the file of key in dir ("": DefaultTuneDir).
func cachePath(dir, key string) (string, error) {
	if dir == "" {
		d, err := DefaultTuneDir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".json"), nil
}

// ParseTuneCache parses a cache file; it fails on anything but a well-formed file of this
// version for key ("" accepts any key).
func ParseTuneCache(raw []byte, key string) (*TuneCache, error) {
	var c TuneCache
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("webgpu: tuning cache: %w", err)
	}
	if c.Version != tuneCacheVersion {
		return nil, fmt.Errorf("webgpu: tuning cache: version %d, want %d", c.Version, tuneCacheVersion)
	}
	if key != "" && c.Adapter != key {
		return nil, errors.New("webgpu: tuning cache: written for another adapter")
	}
	for _, r := range []float64{c.GPUGFLOPS, c.CPUGFLOPS, c.AttentionGFLOPS, c.Attention512GFLOPS, c.FMAGFLOPS} {
		if r < 0 || r > 1e9 {
			return nil, errors.New("webgpu: tuning cache: implausible rates")
		}
	}
	if c.Families == nil {
		c.Families = map[string]CachedFamily{}
	}
	return &c, nil
}

// loadTuneCache reads the cache of key in dir; nil when absent or unusable.
func loadTuneCache(dir, key string) *TuneCache {
	path, err := cachePath(dir, key)
	if err != nil {
		return nil
	}
	raw, err := safefile.ReadRegular(path, maxTuneCacheBytes)
	if err != nil {
		return nil
	}
	c, err := ParseTuneCache(raw, key)
	if err != nil {
		return nil
	}
	return c
}

// saveTuneCache writes c atomically (internal/atomicfile: a temporary file in the same
// folder, synced, then renamed over the old one).
func saveTuneCache(dir string, c *TuneCache) error {
	path, err := cachePath(dir, c.Adapter)
	if err != nil {
		return err
	}
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("webgpu: tuning cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("webgpu: tuning cache: %w", err)
	}
	err = atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("webgpu: tuning cache: %w", err)
	}
	return nil
}

// CachedTuning returns the tuning cache of adapter a (see AdapterDetails) in dir ("": the
// default folder) for the given limits mode, or nil when there is none. It opens no device:
// the device list shows the cached speeds with it.
func CachedTuning(a Adapter, dir string, defaultLimits bool) *TuneCache {
	if a.key == "" {
		return nil
	}
	return loadTuneCache(dir, cacheKey(a.key, defaultLimits))
}
