//go:build race

package cpu

// raceEnabled: the race detector makes sync.Pool drop buffers on purpose.
const raceEnabled = true
