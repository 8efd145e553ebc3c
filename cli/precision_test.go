package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// TestPrecisionFlagErrors: --precision takes exact or fast, and fast only on a backend with
// precision modes (vulkan); anything else is a usage error (exit 2) before any work.
func TestPrecisionFlagErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.png")
	gen := []string{"generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "64", "-H", "64", "-S", "1", "--no-cache", "-o", out}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(gen, "--backend", "purego", "--precision", "half"), "--precision"},
		{append(gen, "--backend", "purego", "--precision", "fast"), "vulkan"},
		{[]string{"bench", "--backend", "purego", "--precision", "fast", "--model", t.TempDir()}, "vulkan"},
	} {
		code, _, errOut := run(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q:\n%s", c.args[len(c.args)-4:], code, c.want, errOut)
		}
	}
}

// TestApplyPrecision: exact leaves any backend as it is and says nothing; fast on the
// Vulkan backend says how the device runs it (skipped without Vulkan).
func TestApplyPrecision(t *testing.T) {
	for _, name := range []string{"purego", "vulkan"} {
		b, err := backends.Open(name)
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		defer b.Close()
		if note, err := applyPrecision(b, gpu.PrecisionExact); note != "" || err != nil {
			t.Errorf("%s exact: %q, %v", name, note, err)
		}
		note, err := applyPrecision(b, gpu.PrecisionFast)
		if name == "purego" && !errors.Is(err, errUsage) {
			t.Errorf("purego fast: %q, %v; want a usage error", note, err)
		}
		if name == "vulkan" && (err != nil || !strings.HasPrefix(note, "fast (")) {
			t.Errorf("vulkan fast: %q, %v", note, err)
		}
	}
}

// TestGeneratePrecisionFast: generate --backend vulkan --precision fast says how the device
// runs it and names the precision in the PNG's metadata (skipped without Vulkan, and in
// make test: make test-vulkan-all runs it, KLEINBILD_VULKAN_ALL=1).
func TestGeneratePrecisionFast(t *testing.T) {
	if os.Getenv("KLEINBILD_VULKAN_ALL") != "1" {
		t.Skip("a generation on lavapipe: make test-vulkan-all runs it (KLEINBILD_VULKAN_ALL=1)")
	}
	if b, err := backends.Open("vulkan"); err != nil {
		t.Skipf("no Vulkan device: %v", err)
	} else {
		b.Close()
	}
	out := filepath.Join(t.TempDir(), "o.png")
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "64", "-H", "64", "-S", "1", "-s", "1",
		"--no-cache", "--backend", "vulkan", "--precision", "fast", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "Precision: fast (") {
		t.Errorf("no \"Precision: fast (...)\" line:\n%s", errOut)
	}
	meta, ok, err := imageio.ReadMetadata(out)
	if err != nil || !ok || meta.Precision != "fast" {
		t.Errorf("metadata precision %q (found %v, %v), want fast", meta.Precision, ok, err)
	}
}
