package cli

import (
	"os"
	"strings"
	"testing"

	"kleinbild/gpu/vulkan"
	"kleinbild/gpu/webgpu"
)

// TestTuneQuick: `kleinbild tune --quick` on the first WebGPU adapter prints one line per
// kernel family with a variant the adapter runs, and the device and CPU rates; a CPU
// backend is refused as a usage error.
func TestTuneQuick(t *testing.T) {
	if !webgpu.Compiled {
		t.Skip("no WebGPU in this build")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, out, errOut := run(t, "tune", "--quick", "--budget", "20s", "--backend", "webgpu:0")
	if code != 0 {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") != "1" && strings.Contains(errOut, "cannot open") {
			t.Skip(errOut)
		}
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Logf("\n%s", out)
	for _, f := range webgpu.Families() {
		if !strings.Contains(out, "\n"+f+" ") {
			t.Errorf("no line for family %s:\n%s", f, out)
		}
	}
	for _, want := range []string{"Device: ", "GFLOP/s on linear", "CPU ("} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The Vulkan backend against WebGPU on the same card, not recorded under --quick.
	if vulkan.Compiled && strings.Contains(out, "\nVulkan vulkan:") &&
		(!strings.Contains(out, "\nAutomatic default on this card: ") || !strings.Contains(out, "(not recorded")) {
		t.Errorf("Vulkan comparison without its verdict:\n%s", out)
	}
	if code, _, _ := run(t, "tune", "--backend", "purego"); code != 2 {
		t.Errorf("tune --backend purego: exit %d, want 2", code)
	}
}
