//go:build !unix && !windows

package settings

import "os"

// lockFile does nothing where flock is not available.
func lockFile(*os.File) error { return nil }

// readOnlyFS reports an error of a read-only file system (fs.ErrPermission covers the rest).
func readOnlyFS(error) bool { return false }
