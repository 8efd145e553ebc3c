package weights

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// dontNeed tells the kernel that the pages of b, which must lie inside mapping (a whole
// mapping returned by mapFile), may be dropped; they are file-backed and read-only, so they
// come back from disk if touched again. madvise needs a page-aligned start, so the range is
// widened down to the page that holds b[0]; that page may hold neighbouring data, which is
// merely re-read on its next use.
func dontNeed(mapping, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(mapping)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if start < base || start-base > uintptr(len(mapping)) || uintptr(len(b)) > uintptr(len(mapping))-(start-base) {
		return fmt.Errorf("madvise: range is not inside the mapping")
	}
	page := uintptr(os.Getpagesize())
	if base%page != 0 {
		return fmt.Errorf("madvise: mapping at %#x is not page aligned", base)
	}
	lo := (start - base) &^ (page - 1)
	hi := start - base + uintptr(len(b))
	return syscall.Madvise(mapping[lo:hi], syscall.MADV_DONTNEED)
}
