//go:build !unix

package download

import "os"

// tryLock does nothing where flock is not available.
func tryLock(*os.File) error { return nil }
