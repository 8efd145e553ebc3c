//go:build race

package estimate

// raceEnabled: the race detector makes sync.Pool drop buffers at random, so allocation
// counts differ from normal runs.
const raceEnabled = true
