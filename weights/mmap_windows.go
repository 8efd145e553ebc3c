package weights

import (
	"os"
	"syscall"
	"unsafe"
)

// mmapped reports that mapFile returns real memory mappings on this platform.
const mmapped = true

// mapFile maps f read-only (a file mapping object and one view of all of it). An empty file
// maps to an empty slice: Windows refuses to map zero bytes. While the view exists Windows
// refuses to truncate or replace the file, so the fault Guard catches only I/O errors of the
// mapping (EXCEPTION_IN_PAGE_ERROR: a removed drive, a broken network share).
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	h, err := syscall.CreateFileMapping(syscall.Handle(f.Fd()), nil, syscall.PAGE_READONLY,
		uint32(uint64(size)>>32), uint32(size), nil)
	if err != nil {
		return nil, nil, os.NewSyscallError("CreateFileMapping", err)
	}
	addr, err := syscall.MapViewOfFile(h, syscall.FILE_MAP_READ, 0, 0, uintptr(size))
	// The view keeps the mapping object alive; its handle is not needed any more.
	syscall.CloseHandle(h)
	if err != nil {
		return nil, nil, os.NewSyscallError("MapViewOfFile", err)
	}
	// addr is memory outside Go's heap: reinterpreting it as a pointer is safe (and what go vet
	// cannot tell from a plain conversion).
	data := unsafe.Slice(*(**byte)(unsafe.Pointer(&addr)), int(size))
	return data, func() error { return os.NewSyscallError("UnmapViewOfFile", syscall.UnmapViewOfFile(addr)) }, nil
}
