//go:build cgo && !linux && !darwin

package webgpu

import "github.com/cogentcore/webgpu/wgpu"

// scopes is a no-op where the weak-symbol shim of scope.go is not available (Windows):
// device errors outside the wrapped calls are then handled by wgpu-native itself.
type scopes struct{}

func newScopes(*wgpu.Device) *scopes            { return &scopes{} }
func (s *scopes) push()                         {}
func (s *scopes) pop() (typ uint32, msg string) { return 0, "" }
func (s *scopes) free()                         {}

func mapRead(buf *wgpu.Buffer, size uint64) (func() (wgpu.BufferMapAsyncStatus, bool), error) {
	return mapReadGo(buf, size)
}

type marker struct{}

func newMarker(*wgpu.Queue) *marker { return nil }
func (m *marker) done() bool        { return true }
func (m *marker) free()             {}
