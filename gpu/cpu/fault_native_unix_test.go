//go:build unix

package cpu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu/purego"
	"kleinbild/internal/testfix"
)

// nativeFaultChildEnv makes TestMappedWeightFaultNative's subprocess run one case:
// "<provider index>/<case>".
const nativeFaultChildEnv = "KLEINBILD_TEST_NATIVE_FAULT_CHILD"

// nativeFaultCases are the ops run over a weight file that shrinks while mapped.
var nativeFaultCases = []string{"linear-f32", "conv-f32", "linear-bf16"}

// TestMappedWeightFaultNative pins "Mapped weights" of the package documentation: an f32 or
// bf16 weight viewing a file mapping that was truncated under it faults in Go code (the copy
// or widening into the tile), where debug.SetPanicOnFault turns the fault into a panic the
// caller recovers, never inside the GEMM provider (OpenBLAS's or oneDNN's own threads), where SIGBUS kills the process
// (issue 23 item 7). Before the f32 copy, Linear and Conv2D by f32 weights handed the mapping
// to OpenBLAS, and bf16 weights went to oneDNN as they were: the subprocess died of SIGBUS. Each case runs in a subprocess, per provider
// (purego, and the native ones of this build: oneDNN's native bf16 product included).
func TestMappedWeightFaultNative(t *testing.T) {
	if v := os.Getenv(nativeFaultChildEnv); v != "" {
		nativeFaultChild(t, v)
		return
	}
	n := 1 + len(nativeTestProviders())
	for p := range n {
		for _, c := range nativeFaultCases {
			t.Run(fmt.Sprintf("%s/%s", faultProvider(p).Name(), c), func(t *testing.T) {
				t.Logf("%s", testfix.RunChild(t, "TestMappedWeightFaultNative", nativeFaultChildEnv, fmt.Sprintf("%d/%s", p, c)))
			})
		}
	}
}

// faultProvider is provider p: purego (0) or a native one of this build.
func faultProvider(p int) BLAS {
	if p == 0 {
		return purego.New()
	}
	return nativeTestProviders()[p-1]
}

// nativeFaultChild maps a weight file, runs the op once, truncates the file to its first page
// and runs the op again under SetPanicOnFault, as engine.Model.Generate does.
func nativeFaultChild(t *testing.T, spec string) {
	ps, c, _ := strings.Cut(spec, "/")
	p, _ := strconv.Atoi(ps)
	b := New(faultProvider(p))
	const out, in = 64, 1152 // a 3×3 kernel over 128 channels; 288 KiB as f32
	isBF16 := strings.HasSuffix(c, "bf16")
	size := out * in * 4
	if isBF16 {
		size = out * in * 2
	}
	raw := make([]byte, size)
	for i := 0; i < len(raw); i += 4 {
		raw[i+3] = 0x3f // f32 0x3f000000 = 0.5; as bf16 pairs 0x0000 and 0x3f00 = 0.5
	}
	data, path := testfix.MapFile(t, "weights.bin", raw)
	var w gpu.Tensor
	var err error
	if isBF16 {
		w, err = b.WeightBF16(unsafe.Slice((*uint16)(unsafe.Pointer(&data[0])), out*in), out, in)
	} else {
		w, err = b.WeightF32(unsafe.Slice((*float32)(unsafe.Pointer(&data[0])), out*in), out, in)
	}
	if err != nil {
		t.Fatal(err)
	}
	const rows, hw = 32, 8
	x, err := gpu.FromHost(b, make([]float32, rows*in))
	if err != nil {
		t.Fatal(err)
	}
	y, err := b.Alloc(gpu.F32, max(rows, hw*hw)*out)
	if err != nil {
		t.Fatal(err)
	}
	op := func() { b.Linear(y, x, w, gpu.Tensor{}, rows) }
	if c == "conv-f32" {
		cp := gpu.ConvParams{InC: in / 9, InH: hw, InW: hw, KH: 3, KW: 3, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
		op = func() { b.Conv2D(y, x, w, gpu.Tensor{}, cp) }
	}
	op()
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	testfix.Shrink(t, path, int64(os.Getpagesize()))
	testfix.RecoverFault(t, c, op)
}
