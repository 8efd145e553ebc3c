//go:build amd64 && !purego

package cpufeat

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestAgainstProcCPUInfo cross-checks CPUID with the kernel's view of the CPU on Linux/amd64.
func TestAgainstProcCPUInfo(t *testing.T) {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" || err != nil {
		t.Skip("needs /proc/cpuinfo on linux/amd64")
	}
	var flags map[string]bool
	for _, line := range strings.Split(string(raw), "\n") {
		if name, val, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			flags = map[string]bool{}
			for _, f := range strings.Fields(val) {
				flags[f] = true
			}
			break
		}
	}
	if flags == nil {
		t.Skip("no flags line in /proc/cpuinfo")
	}
	want := flags["avx2"] && flags["fma"]
	if AVX2FMA() != want {
		t.Errorf("CPUID says AVX2FMA=%v, /proc/cpuinfo says %v", AVX2FMA(), want)
	}
}
