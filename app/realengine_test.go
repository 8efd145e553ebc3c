package app

import (
	"strings"
	"testing"
	"time"

	"kleinbild/app/thumbcache"
	"kleinbild/engine/imageio"
)

// TestGenerateRealTinyModel needs the real engine: it generates through engine.Open on
// gpu.Default with the tiny golden model, exactly as the app does.
func TestGenerateRealTinyModel(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), nil)
	u := h.ui
	u.ctl.setSize(64, 64)
	start := time.Now()
	out := h.generate("a tiny test image")
	if out.err != nil {
		t.Fatalf("real engine: %v", out.err)
	}
	t.Logf("generated in %v (engine %v)", time.Since(start), out.entry.Meta.Duration)
	if u.gallery.Len() != 1 {
		t.Fatalf("gallery has %d images", u.gallery.Len())
	}
	e, _ := u.gallery.At(0)
	img, err := thumbcache.DecodeFile(u.gallery.Path(e))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
		t.Errorf("image is %v, want 64×64", b)
	}
	meta, ok, err := imageio.ReadMetadata(u.gallery.Path(e))
	if err != nil || !ok || meta.Prompt != "a tiny test image" || meta.Steps != 4 || meta.Width != 64 || !strings.HasSuffix(meta.Variant, "distilled") {
		t.Errorf("metadata %+v (%v, %v)", meta, ok, err)
	}
	if got := u.ctl.seed.Text; got == "" || meta.Seed == 0 && got != "0" {
		t.Errorf("seed field %q, metadata seed %d", got, meta.Seed)
	}

	// The model stays loaded: a second run reuses it.
	gen := u.run.gen
	if out := h.generate("a second tiny image"); out.err != nil {
		t.Fatal(out.err)
	}
	if u.run.gen != gen {
		t.Error("the engine was opened again for the same folder")
	}
}
