package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/weights/golden"
)

// Item 11: generate without -p is a usage error, not an image of the empty prompt.
func TestGenerateRequiresPrompt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.png")
	code, stdout, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-W", "64", "-H", "64", "-s", "1", "-o", out, "-q", "--no-cache")
	if code != 2 || !strings.Contains(errOut, "-p") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming -p", code, errOut)
	}
	if strings.Contains(stdout, "Seed:") {
		t.Errorf("printed a seed for a usage error: %q", stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("wrote an image without a prompt")
	}
}

// Item 11: -p - reads the prompt from standard input, dropping one trailing newline.
func TestGeneratePromptFromStdin(t *testing.T) {
	old := stdin
	stdin = strings.NewReader("a red cube\non a table\n")
	t.Cleanup(func() { stdin = old })
	out := filepath.Join(t.TempDir(), "o.png")
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "-", "-W", "64", "-H", "64", "-s", "1", "-S", "1", "-o", out, "-q", "--no-cache")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	m, ok, err := imageio.ReadMetadata(out)
	if err != nil || !ok {
		t.Fatalf("metadata: %v %v", ok, err)
	}
	if m.Prompt != "a red cube\non a table" {
		t.Errorf("prompt %q, want the standard input minus its trailing newline", m.Prompt)
	}
}

// Item 11: the seed line comes only after -d has been checked.
func TestGenerateNoSeedBeforeModelCheck(t *testing.T) {
	tmp := t.TempDir()
	for name, dir := range map[string]string{"missing": filepath.Join(tmp, "nope"), "not a model": tmp} {
		t.Run(name, func(t *testing.T) {
			code, stdout, errOut := run(t, "generate", "-d", dir, "-p", "x", "-o", filepath.Join(tmp, "o.png"))
			if code != 1 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Contains(stdout, "Seed:") {
				t.Errorf("seed printed before the model folder failed: %q", stdout)
			}
		})
	}
}

// Item 11: no silent flooring, no "0 means default" for an explicit flag. Issue 22: the CLI
// takes every size the engine computes (16..4096) and warns outside 64..1792, the app's
// range (TestGenerateSmallSizeAndJPEG).
func TestGenerateSizeRule(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "o.png")
	tiny := golden.TinyModel(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-W", "100"}, "-W: 100 px is not a multiple of 16: try 96 or 112"},
		{[]string{"-W", "0"}, "-W: 0 px is out of range"},
		{[]string{"-H", "8"}, "-H: 8 px is out of range: use a multiple of 16 between 16 and 4096"},
		{[]string{"-W", "4112"}, "between 16 and 4096"},
	} {
		code, stdout, errOut := run(t, append([]string{"generate", "-d", tiny, "-p", "x", "-o", out}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", c.args, code, errOut, c.want)
		}
		if strings.Contains(stdout, "Seed:") {
			t.Errorf("%v: printed a seed", c.args)
		}
	}
}
