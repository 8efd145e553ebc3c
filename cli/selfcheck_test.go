package cli

import (
	"strings"
	"testing"

	"kleinbild/gpu/vulkan"
)

// TestDevicesSelfCheck: devices --selfcheck prints the table unchanged and then, for every
// Vulkan device, what it checked; on lavapipe (no matrix units) that it has none and
// compared nothing, exit 0. Skipped where Vulkan finds no device.
func TestDevicesSelfCheck(t *testing.T) {
	if infos, err := vulkan.Devices(); err != nil || len(infos) == 0 {
		t.Skipf("no Vulkan device: %v", err)
	}
	code, out, errOut := run(t, "devices", "--selfcheck")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	_, table, _ := run(t, "devices")
	if !strings.HasPrefix(out, table) {
		t.Errorf("the table changed:\n%s\nwant it to start with:\n%s", out, table)
	}
	checks := strings.TrimPrefix(out, table)
	if !strings.HasPrefix(checks, "Self-check vulkan:0: ") {
		t.Errorf("no self-check line for vulkan:0:\n%s", checks)
	}
	for _, line := range strings.Split(strings.TrimSpace(checks), "\n") {
		switch {
		case strings.Contains(line, "no matrix units") && strings.Contains(line, "nothing to compare"):
		case strings.Contains(line, "matrix units: "), strings.HasSuffix(line, " ok"):
		default:
			t.Errorf("unexpected self-check line %q", line)
		}
	}
	if code, _, _ := run(t, "devices", "--selfcheck", "--json"); code != 2 {
		t.Errorf("devices --selfcheck --json: exit %d, want 2", code)
	}
}
