package cli

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestDumpFeedsLatents: the initial noise --dump writes (latents_init) is taken by --latents
// and makes the same image under another seed; a file holding neither name is refused with
// the tensors it holds named (issue 37 item 19: only `tensor not found: "latents"`).
func TestDumpFeedsLatents(t *testing.T) {
	tmp := t.TempDir()
	dump := filepath.Join(tmp, "dump")
	first, again := filepath.Join(tmp, "first.png"), filepath.Join(tmp, "again.png")
	gen := []string{"generate", "-d", golden.TinyModel(t), "-p", "a red cube", "-W", "64", "-H", "64", "-s", "2", "-q", "--no-cache"}
	if code, _, errOut := run(t, append(gen, "-S", "3", "--dump", dump, "-o", first)...); code != 0 {
		t.Fatalf("generate --dump: exit %d: %s", code, errOut)
	}
	noise := filepath.Join(dump, "latents_init.safetensors")
	if code, _, errOut := run(t, append(gen, "-S", "4", "--latents", noise, "-o", again)...); code != 0 {
		t.Fatalf("generate --latents %s: exit %d: %s", noise, code, errOut)
	}
	if a, b := pixels(t, first), pixels(t, again); !bytes.Equal(a, b) {
		t.Errorf("the dumped noise under another seed made another image")
	}
	other := filepath.Join(dump, "latents_final.safetensors")
	code, _, errOut := run(t, append(gen, "--latents", other, "-o", again)...)
	if code != 1 || !strings.Contains(errOut, `"latents_final"`) || !strings.Contains(errOut, `"latents_init"`) {
		t.Errorf("--latents with latents_final only: exit %d, %q: want the names the file holds and those wanted", code, errOut)
	}
}

// pixels decodes the PNG at path to RGBA bytes.
func pixels(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba.Pix
}
