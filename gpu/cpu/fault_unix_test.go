//go:build unix

package cpu

import (
	"os"
	"testing"
	"unsafe"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu/purego"
	"kleinbild/internal/testfix"
)

// faultChildEnv makes TestWorkerFaultReachesCaller's subprocess run the faulting op.
const faultChildEnv = "KLEINBILD_TEST_WORKER_FAULT_CHILD"

// TestWorkerFaultReachesCaller: a bf16 weight viewing a file mapping, truncated so that only
// the first worker's share stays backed, faults in the widening kernel on the other worker
// goroutines. The fault must reach the calling goroutine as a recoverable panic (engine turns
// it into an error naming the file), not kill the process with SIGBUS (issue 23 item 7). The
// op runs in a subprocess, so a crash fails this test instead of ending the test binary.
func TestWorkerFaultReachesCaller(t *testing.T) {
	if os.Getenv(faultChildEnv) == "1" {
		workerFaultChild(t)
		return
	}
	t.Logf("%s", testfix.RunChild(t, "TestWorkerFaultReachesCaller", faultChildEnv, "1"))
}

// workerFaultChild maps a file of bf16 weights, checks one Linear over it, truncates the
// file to the first worker's share and runs the Linear again under SetPanicOnFault, as
// engine.Model.Generate does.
func workerFaultChild(t *testing.T) {
	const in, out, workers = 256, 256, 4 // 64 Ki values: 4 widening tasks of 16 Ki (grain)
	bits := make([]byte, in*out*2)
	for i := 0; i < len(bits); i += 2 {
		bits[i+1] = 0x3f // bf16 0x3f00 = 0.5
	}
	data, path := testfix.MapFile(t, "weights.bin", bits)

	b := New(purego.New()) // no native bf16: the weight is widened on the workers
	b.workers = workers
	w, err := b.WeightBF16(unsafe.Slice((*uint16)(unsafe.Pointer(&data[0])), in*out), out, in)
	if err != nil {
		t.Fatal(err)
	}
	x, err := gpu.FromHost(b, make([]float32, in))
	if err != nil {
		t.Fatal(err)
	}
	y, err := b.Alloc(gpu.F32, out)
	if err != nil {
		t.Fatal(err)
	}
	b.Linear(y, x, w, gpu.Tensor{}, 1)
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	testfix.Shrink(t, path, int64(len(bits)/workers)) // 32 KiB: page-aligned
	testfix.RecoverFault(t, "Linear", func() { b.Linear(y, x, w, gpu.Tensor{}, 1) })
}
