package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRandModelLoRAAlpha: randmodel --lora refuses a --lora-alpha that is NaN, infinite or
// beyond float32 at the flag, as a usage error naming it, and writes nothing; it exited 0
// with empty adapter metadata (issue 37 item 7).
func TestRandModelLoRAAlpha(t *testing.T) {
	for _, a := range []string{"NaN", "Inf", "-Inf", "1e308"} {
		path := filepath.Join(t.TempDir(), "r.safetensors")
		code, _, errOut := run(t, "randmodel", "--variant", "tiny", "--lora", path, "--lora-alpha", a, "-q")
		if code != 2 || !strings.Contains(errOut, "--lora-alpha") {
			t.Errorf("--lora-alpha %s: exit %d: %s", a, code, errOut)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("--lora-alpha %s: file written", a)
		}
	}
}
