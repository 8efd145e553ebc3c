//go:build !darwin

package sysmem

// physicalRAM is only probed this way on macOS; elsewhere /proc/meminfo answers.
func physicalRAM() (uint64, bool) { return 0, false }
