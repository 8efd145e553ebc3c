package imagefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
)

func TestDescribe(t *testing.T) {
	m := imageio.Metadata{Precision: "fast"}
	m.Width, m.Height, m.Seed, m.Steps, m.Guidance = 512, 256, 7, 4, 4
	got := Describe(m)
	for _, want := range []string{"512 × 256", "seed 7", "4 steps", "guidance 4.0", "fast precision"} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe = %q, want it to contain %q", got, want)
		}
	}
	m.Guidance = 1
	if strings.Contains(Describe(m), "guidance") {
		t.Error("guidance 1 (none) is described")
	}
}

func TestAdaptersDetail(t *testing.T) {
	if AdaptersDetail(nil) != "" {
		t.Error("no adapters gave a line")
	}
	got := AdaptersDetail([]imageio.Adapter{{File: "a.safetensors", Strength: 0.5}})
	if got != "\nAdapters: a.safetensors (0.50)" {
		t.Errorf("AdaptersDetail = %q", got)
	}
}

func TestCheckReferenceRefuses(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(txt, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.png")
	if err := os.WriteFile(cut, []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, txt, cut, filepath.Join(dir, "missing.png")} {
		if err := CheckReference(p); err == nil {
			t.Errorf("CheckReference(%s) accepted it", filepath.Base(p))
		}
	}
	if IsImage("a.txt") || !IsImage("A.PNG") {
		t.Error("IsImage goes by the extension, case-insensitively")
	}
}
