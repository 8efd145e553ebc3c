package sysmem

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// memoryStatusEx is Windows' MEMORYSTATUSEX.
type memoryStatusEx struct {
	length               uint32
	memoryLoad           uint32
	totalPhys            uint64
	availPhys            uint64
	totalPageFile        uint64
	availPageFile        uint64
	totalVirtual         uint64
	availVirtual         uint64
	availExtendedVirtual uint64
}

// globalMemoryStatus asks Windows for the machine's memory (GlobalMemoryStatusEx).
func globalMemoryStatus() (memoryStatusEx, bool) {
	st := memoryStatusEx{}
	st.length = uint32(unsafe.Sizeof(st))
	proc := windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")
	if r, _, _ := proc.Call(uintptr(unsafe.Pointer(&st))); r == 0 {
		return st, false
	}
	return st, true
}

// physicalRAM is the installed memory on Windows.
func physicalRAM() (uint64, bool) {
	st, ok := globalMemoryStatus()
	return st.totalPhys, ok && st.totalPhys > 0
}

// availableRAM is the physical memory Windows can hand out now without paging others out
// (MEMORYSTATUSEX.ullAvailPhys: free, zeroed and standby pages).
func availableRAM() (uint64, bool) {
	st, ok := globalMemoryStatus()
	return st.availPhys, ok && st.availPhys > 0
}
