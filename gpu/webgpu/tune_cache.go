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
	// Shapes are Linear's choices per shape (tune_shape.go); files written before them have
	// none and load as they did.
	Shapes []CachedShape `json:"shapes,omitempty"`
}

// CachedShape is Linear's tuned choice for products of N outputs of depth K whose rows fall
// in M-bucket M (shapeBucket: the least power of two at or above the rows).
type CachedShape struct {
	M       int                `json:"m"`
	N       int                `json:"n"`
	K       int                `json:"k"`
	Hash    string             `json:"hash"`
	Variant string             `json:"variant"`
	Seconds map[string]float64 `json:"seconds,omitempty"`
}

// maxCachedShapes bounds a cache's shape records (the model's shapes are a few dozen).
const maxCachedShapes = 1024

// maxShapeDim bounds a shape record's M, N and K.
const maxShapeDim = 1 << 24

// validShapes reports whether every shape record has a bucket M (a power of two), N and K
// in 1..maxShapeDim and a variant, with no two records of one key.
func validShapes(shapes []CachedShape) bool {
	if len(shapes) > maxCachedShapes {
		return false
	}
	seen := map[[3]int]bool{}
	for _, s := range shapes {
		if s.M < 1 || s.M > maxShapeDim || s.M&(s.M-1) != 0 || s.N < 1 || s.N > maxShapeDim ||
			s.K < 1 || s.K > maxShapeDim || s.Variant == "" {
			return false
		}
		k := [3]int{s.M, s.N, s.K}
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
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
	if !validShapes(c.Shapes) {
		return nil, errors.New("webgpu: tuning cache: invalid Linear shape records")
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
