package sysmem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// AvailableRAM returns the memory available to new allocations without swapping, as the
// system estimates it (MemAvailable on Linux, ullAvailPhys on Windows). ok is false where it
// cannot be read.
func AvailableRAM() (bytes uint64, ok bool) {
	if b, ok := availableRAM(); ok {
		return b, true
	}
	return meminfoField("MemAvailable:")
}

// TotalRAM returns the machine's physical memory where known (MemTotal on Linux,
// hw.memsize on macOS, ullTotalPhys on Windows).
func TotalRAM() (bytes uint64, ok bool) {
	if b, ok := physicalRAM(); ok {
		return b, true
	}
	return meminfoField("MemTotal:")
}

// RAMForModels is the memory the fit check compares a generation against: the RAM
// available now where the system reports it (Linux, Windows), else the installed RAM
// (macOS; total is then true). ok is false where neither can be read.
func RAMForModels() (bytes uint64, total, ok bool) {
	if b, ok := AvailableRAM(); ok {
		return b, false, true
	}
	if b, ok := TotalRAM(); ok {
		return b, true, true
	}
	return 0, false, false
}

func meminfoField(key string) (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, key) {
			continue
		}
		fields := strings.Fields(line[len(key):])
		if len(fields) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}
