//go:build cgo

package webgpu

import (
	"runtime/debug"

	"github.com/cogentcore/webgpu/wgpu"
)

// mapReadGo maps through package wgpu, whose callback handle lives only as long as nothing
// collects it: garbage collection stays off until the status has been seen (mapRead in
// scope.go avoids this where the C entry point is reachable).
func mapReadGo(buf *wgpu.Buffer, size uint64) (func() (wgpu.BufferMapAsyncStatus, bool), error) {
	old := debug.SetGCPercent(-1)
	done := false
	var st wgpu.BufferMapAsyncStatus
	if err := buf.MapAsync(wgpu.MapModeRead, 0, size, func(s wgpu.BufferMapAsyncStatus) { st, done = s, true }); err != nil {
		debug.SetGCPercent(old)
		return nil, err
	}
	return func() (wgpu.BufferMapAsyncStatus, bool) {
		if done {
			debug.SetGCPercent(old)
		}
		return st, done
	}, nil
}
