package engine

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// Content fingerprints of the files the embedding cache keys on. A file's size and mtime
// are not enough: a same-size copy made with cp -p, rsync -a or tar keeps the mtime. A
// fingerprint hashes a small file whole and a large one in part (its first MiB, fpSamples
// blocks spread over it and its last block), so a different model of the same layout
// differs. It is recorded in the cache folder and computed again only when the file's
// identity (device, inode, change time where the platform has them), size or mtime change.
const (
	fpWhole     = 16 << 20 // files up to this size are hashed whole
	fpHead      = 1 << 20
	fpBlock     = 64 << 10
	fpSamples   = 32
	fpFile      = "fingerprints.json"
	fpMaxRecord = 4 << 20 // bytes of fingerprints.json read at most
)

// fpRecord is one file's fingerprint with what it was taken of.
type fpRecord struct {
	ID    string `json:"id"`
	Size  int64  `json:"size"`
	ModNs int64  `json:"mod_ns"`
	Sum   string `json:"sum"`
}

// fingerprints are the records of a cache folder ("" keeps them in memory only).
type fingerprints struct {
	dir   string
	recs  map[string]fpRecord
	dirty bool
}

// loadFingerprints reads the records kept in dir (none when it has none or they are damaged).
func loadFingerprints(dir string) *fingerprints {
	f := &fingerprints{dir: dir, recs: map[string]fpRecord{}}
	if dir == "" {
		return f
	}
	if raw, err := safefile.ReadRegular(filepath.Join(dir, fpFile), fpMaxRecord); err == nil {
		if json.Unmarshal(raw, &f.recs) != nil || f.recs == nil {
			f.recs = map[string]fpRecord{}
		}
	}
	return f
}

// of is the fingerprint of the file at path: the recorded one while the file's identity,
// size and mtime are unchanged, else computed and recorded.
func (f *fingerprints) of(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	rec := fpRecord{ID: fileIdentity(st), Size: st.Size(), ModNs: st.ModTime().UnixNano()}
	if old, ok := f.recs[abs]; ok && old.ID == rec.ID && rec.ID != "" && old.Size == rec.Size && old.ModNs == rec.ModNs {
		return old.Sum, nil
	}
	if rec.Sum, err = fingerprint(abs); err != nil {
		return "", err
	}
	f.recs[abs], f.dirty = rec, true
	return rec.Sum, nil
}

// save writes the records back if any changed; a failure only costs their recomputation.
func (f *fingerprints) save() {
	if f.dir == "" || !f.dirty || len(f.recs) > 10000 {
		return
	}
	raw, err := json.Marshal(f.recs)
	if err != nil || os.MkdirAll(f.dir, 0o755) != nil {
		return
	}
	if atomicfile.WriteAtomic(filepath.Join(f.dir, fpFile), func(w *bufio.Writer) error {
		_, err := w.Write(raw)
		return err
	}) == nil {
		f.dirty = false
	}
}

// fingerprint hashes the file at path: whole up to fpWhole bytes, else its head, fpSamples
// evenly spread blocks and its tail, with its size.
func fingerprint(path string) (string, error) {
	file, st, err := safefile.OpenRegular(path, 0)
	if err != nil {
		return "", err
	}
	defer file.Close()
	h := sha256.New()
	size := st.Size()
	fmt.Fprintf(h, "size %d\n", size)
	if size <= fpWhole {
		if _, err := io.Copy(h, file); err != nil {
			return "", fmt.Errorf("fingerprint %s: %w", path, err)
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	read := func(off, n int64) error {
		_, err := io.Copy(h, io.NewSectionReader(file, off, n))
		return err
	}
	if err := read(0, fpHead); err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", path, err)
	}
	step := (size - fpHead - fpBlock) / fpSamples
	for i := range int64(fpSamples) {
		if err := read(fpHead+i*step, fpBlock); err != nil {
			return "", fmt.Errorf("fingerprint %s: %w", path, err)
		}
	}
	if err := read(size-fpBlock, fpBlock); err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
