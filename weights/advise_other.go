//go:build !linux

package weights

// dontNeed does nothing outside Linux: files are read into memory (Windows), or the
// standard library offers no madvise (macOS, BSDs), so Release has no effect there.
func dontNeed(mapping, b []byte) error { return nil }
