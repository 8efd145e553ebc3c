//go:build darwin

package sysmem

import (
	"os/exec"
	"strconv"
	"strings"
)

// physicalRAM is the installed memory on macOS (sysctl hw.memsize): macOS has no cheap
// "available without swapping" figure, so the fit check compares against installed memory.
func physicalRAM() (uint64, bool) {
	out, err := exec.Command("sysctl", "-n", "hw.memsize").Output()
	if err != nil {
		return 0, false
	}
	b, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
	return b, err == nil
}
