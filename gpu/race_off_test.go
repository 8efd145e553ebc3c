//go:build !race

package gpu

// raceEnabled: the race detector makes sync.Pool drop buffers on purpose.
const raceEnabled = false
