package cli

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/weights/golden"
)

// TestGenerateNegativePrompt: -n and --negative-prompt (and -n - from standard input) reach
// the base model's CFG (the image changes), are recorded in the metadata and the A1111
// parameters, and -p - with -n - is refused.
func TestGenerateNegativePrompt(t *testing.T) {
	base := golden.TinyBaseModel(t)
	tmp := t.TempDir()
	gen := func(name string, extra ...string) (string, imageio.Metadata) {
		t.Helper()
		out := filepath.Join(tmp, name+".png")
		args := append([]string{"generate", "-d", base, "-p", "A red cube on a blue table", "-W", "64", "-H", "48",
			"-s", "2", "-S", "3", "-o", out, "-q", "--no-cache"}, extra...)
		if code, _, errOut := run(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		meta, ok, err := imageio.ReadMetadata(out)
		if err != nil || !ok {
			t.Fatalf("%s: metadata ok=%v err=%v", name, ok, err)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(img.(*image.RGBA).Pix), meta
	}
	plain, plainMeta := gen("plain")
	short, shortMeta := gen("short", "-n", "a green sphere")
	long, _ := gen("long", "--negative-prompt", "a green sphere")
	old := stdin
	t.Cleanup(func() { stdin = old })
	stdin = strings.NewReader("a green sphere\n")
	piped, _ := gen("piped", "-n", "-")
	if plainMeta.NegativePrompt != "" || strings.Contains(plainMeta.Parameters(), "Negative prompt") {
		t.Errorf("no -n: metadata has negative prompt %q", plainMeta.NegativePrompt)
	}
	if shortMeta.NegativePrompt != "a green sphere" || !strings.Contains(shortMeta.Parameters(), "\nNegative prompt: a green sphere") {
		t.Errorf("-n: metadata negative prompt %q, parameters %q", shortMeta.NegativePrompt, shortMeta.Parameters())
	}
	if short == plain {
		t.Error("-n left the image unchanged")
	}
	if long != short || piped != short {
		t.Error("--negative-prompt or -n - gave another image than -n")
	}
	stdin = strings.NewReader("x\n")
	code, _, errOut := run(t, "generate", "-d", base, "-p", "-", "-n", "-", "-o", filepath.Join(tmp, "x.png"))
	if code != 2 || !strings.Contains(errOut, "standard input") {
		t.Errorf("-p - -n -: exit %d, %q; want 2 naming standard input", code, errOut)
	}
}
