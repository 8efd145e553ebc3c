package cli

import (
	"bytes"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// Issue 22 item 11: the README's -W 80 -H 48 works (any multiple of 16 in 16..4096),
// with a warning outside 64..1792; -o NAME.jpg writes a JPEG with the parameters text.
func TestGenerateSmallSizeAndJPEG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.jpg")
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "a cat", "-W", "80", "-H", "48", "-s", "1", "-S", "3", "-o", out, "-q", "--no-cache")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "warning: -H 48") || strings.Contains(errOut, "-W 80") {
		t.Errorf("stderr %q: want a warning for -H 48 only", errOut)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("-o e.jpg is not a JPEG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 80 || b.Dy() != 48 {
		t.Errorf("JPEG %v, want 80×48", b)
	}
	if !bytes.Contains(raw, []byte("Seed: 3, Size: 80x48")) {
		t.Error("the JPEG lacks the parameters comment")
	}
}

// Issue 22 item 11: sizes, formats and missing flags the CLI refuses, with what to do.
func TestGenerateRefusals(t *testing.T) {
	tmp := t.TempDir()
	tiny := golden.TinyModel(t)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"below 16", []string{"-d", tiny, "-p", "x", "-W", "8", "-o", filepath.Join(tmp, "o.png")}, "between 16 and 4096"},
		{"above 4096", []string{"-d", tiny, "-p", "x", "-H", "4112", "-o", filepath.Join(tmp, "o.png")}, "between 16 and 4096"},
		{"not a multiple", []string{"-d", tiny, "-p", "x", "-W", "50", "-o", filepath.Join(tmp, "o.png")}, "try 48 or 64"},
		{"webp", []string{"-d", tiny, "-p", "x", "-o", filepath.Join(tmp, "o.webp")}, ".png, .jpg or .jpeg"},
		{"no -o", []string{"-d", tiny, "-p", "x"}, "-o OUT.png is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := run(t, append([]string{"generate"}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut, c.want)
			}
			if c.name == "no -o" && strings.Contains(errOut, "-d MODEL_DIR") {
				t.Errorf("asks for -d although it was given: %q", errOut)
			}
		})
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("refused runs left files: %v", entries)
	}
}

// Issue 22 item 11: tokens -p - and encode -p - read standard input, as generate does.
func TestTokensAndEncodeReadStdin(t *testing.T) {
	old := stdin
	t.Cleanup(func() { stdin = old })
	tiny := golden.TinyModel(t)
	_, want, _ := run(t, "tokens", "-d", tiny, "-p", "a red cube")
	stdin = strings.NewReader("a red cube\n")
	code, got, errOut := run(t, "tokens", "-d", tiny, "-p", "-")
	if code != 0 || got != want {
		t.Errorf("tokens -p -: exit %d (%s), output differs from -p 'a red cube': %v", code, errOut, got != want)
	}
	stdin = strings.NewReader("a red cube\n")
	out := filepath.Join(t.TempDir(), "emb.safetensors")
	if code, _, errOut := run(t, "encode", "-d", tiny, "-p", "-", "-o", out, "-q"); code != 0 {
		t.Fatalf("encode -p -: exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(raw, []byte(`"prompt":"a red cube"`)) {
		t.Errorf("encode -p -: the file's prompt is not the standard input (%v)", err)
	}
}

// Issue 22 item 11: info on a folder that is not a model lists its problems without a
// made-up variant and step count first.
func TestInfoNotAModel(t *testing.T) {
	code, out, _ := run(t, "info", "-d", t.TempDir())
	if code != 1 || strings.Contains(out, "variant:") || strings.Contains(out, "steps:") || !strings.Contains(out, "problem:") {
		t.Errorf("exit %d, output %q", code, out)
	}
}
