package engine

import (
	"os"
	"testing"

	"kleinbild/weights/golden"
)

// TestEmbedCacheChecksum: a disk entry with one bit flipped in its values is a miss (and is
// deleted); it was used as it was, and the image differed from --no-cache's (issue 37
// item 5). The intact entry is a hit.
func TestEmbedCacheChecksum(t *testing.T) {
	const prompt, width = "a cube", 96
	dir := t.TempDir()
	info := ModelInfo{Dir: golden.TinyModel(t)}
	emb := make([]float32, TextTokens*width)
	for i := range emb {
		emb[i] = float32(i%97) / 97
	}
	newEmbedCache(dir, 0, info, "cpu", width).put(prompt, emb)
	if got, ok := newEmbedCache(dir, 0, info, "cpu", width).get(prompt); !ok || got[5] != emb[5] {
		t.Fatal("intact entry: miss")
	}
	c := newEmbedCache(dir, 0, info, "cpu", width)
	p := c.path(prompt)
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-4*1000] ^= 0x10 // a mantissa bit of value 1000 from the end: still finite
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(prompt); ok {
		t.Fatal("entry with a flipped bit: hit")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("corrupt entry kept: %v", err)
	}
}
