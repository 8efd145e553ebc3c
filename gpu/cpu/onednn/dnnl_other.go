//go:build !linux || !cgo

package onednn

import "errors"

// library is never available in this build: oneDNN is loaded with dlopen on Linux with cgo only.
type library struct{ version string }

func load() (*library, error) { return loadNamed("") }

func loadNamed(string) (*library, error) {
	return nil, errors.New("onednn: needs Linux and cgo (dlopen)")
}

func (*library) gemmNT(m, n, k int, a, b []uint16, c []float32, ldc int) int { return -1 }

func (*library) amx() bool { return false }
