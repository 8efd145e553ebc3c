//go:build !unix

package engine

// processCPUSeconds is 0 where the process's CPU time is not read (the benchmark then
// reports wall time only).
func processCPUSeconds() float64 { return 0 }
