package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/weights/golden"
)

// TestGenerateNoiseFlag: --noise stable reaches the engine and the metadata, the default
// stays torch, and an unknown kind is a usage error before anything is loaded.
func TestGenerateNoiseFlag(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "torch"},
		{[]string{"--noise", "stable"}, "stable"},
	} {
		out := filepath.Join(tmp, c.want+".png")
		args := append([]string{"generate", "-d", golden.TinyModel(t), "-p", "a cube", "-W", "64", "-H", "64", "-s", "1", "-S", "5", "-o", out, "-q", "--no-cache"}, c.args...)
		if code, _, errOut := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		meta, ok, err := imageio.ReadMetadata(out)
		if err != nil || !ok || meta.Noise != c.want || !strings.Contains(meta.Parameters(), "Noise: "+c.want) {
			t.Fatalf("%v: metadata noise %q (ok %v, error %v), want %q", c.args, meta.Noise, ok, err, c.want)
		}
	}
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-o", filepath.Join(tmp, "bad.png"), "--noise", "perlin")
	if code != 2 || !strings.Contains(errOut, "stable") {
		t.Fatalf("--noise perlin: exit %d, %q; want a usage error naming the kinds", code, errOut)
	}
}
