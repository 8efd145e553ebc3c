package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

const envEGLChild = "KLEINBILD_TEST_EGL_ARGS"

// TestBrokenEGLCommands: with a broken GL/EGL environment (libglvnd pointed at a missing
// vendor file, where wgpu-hal's EGL probe panics, gfx-rs/wgpu#6165) `devices` lists the CPU
// backends, and generate, encode and info on a CPU backend run the tiny model: no command
// aborts. Each runs in a child process, as the abort could not be recovered.
func TestBrokenEGLCommands(t *testing.T) {
	if args := os.Getenv(envEGLChild); args != "" {
		os.Exit(Run(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
	}
	model, dir := golden.TinyModel(t), t.TempDir()
	cases := [][]string{
		{"devices"},
		{"generate", "--backend", "purego", "-d", model, "-p", "a cube", "-W", "64", "-H", "64", "-S", "1", "-o", filepath.Join(dir, "a.png"), "-q"},
		{"encode", "--backend", "purego", "-d", model, "-p", "a cube", "-o", filepath.Join(dir, "e.safetensors")},
		{"info", "-d", model},
	}
	for _, args := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenEGLCommands$", "-test.count=1")
		cmd.Env = append(os.Environ(), envEGLChild+"="+strings.Join(args, "\x1f"), "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), "panicked") {
			t.Errorf("%s: %v\n%s", args[0], err, tail(string(out)))
			continue
		}
		if args[0] == "devices" && !strings.Contains(string(out), "\npurego\tcpu") {
			t.Errorf("devices: no CPU backend listed:\n%s", out)
		}
	}
	// No Vulkan driver at all: the CPU backends and a note saying why no GPU shows.
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenEGLCommands$", "-test.count=1")
	cmd.Env = append(os.Environ(), envEGLChild+"=devices", "VK_ICD_FILENAMES=/nonexistent.json", "VK_DRIVER_FILES=/nonexistent.json")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\npurego\tcpu") ||
		(!strings.Contains(string(out), "webgpu:") && !strings.Contains(string(out), "Note: no GPU: ")) {
		t.Errorf("devices without a Vulkan driver: %v\n%s", err, tail(string(out)))
	}
}

func tail(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return fmt.Sprint(strings.Join(l[max(len(l)-8, 0):], "\n"))
}
