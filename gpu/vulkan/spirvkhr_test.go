//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// embeddedModules returns every embedded kernel's SPIR-V words by name.
func embeddedModules(t *testing.T) map[string][]uint32 {
	t.Helper()
	ents, err := spirv.ReadDir("shaders")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]uint32{}
	for _, e := range ents {
		code, err := spirv.ReadFile("shaders/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		w, err := spirvWords(code)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		out[strings.TrimSuffix(e.Name(), ".spv")] = w
	}
	return out
}

// nvModules returns the embedded modules that declare CooperativeMatrixNV (linearcm at
// least).
func nvModules(t *testing.T) map[string][]uint32 {
	t.Helper()
	out := map[string][]uint32{}
	for name, w := range embeddedModules(t) {
		if declaresNVCoop(w) {
			out[name] = w
		}
	}
	if out["linearcm"] == nil {
		t.Fatal("linearcm does not declare CooperativeMatrixNV")
	}
	return out
}

// TestSPIRVRoundTrip: parsing and joining every embedded module gives its bytes back.
func TestSPIRVRoundTrip(t *testing.T) {
	for name, w := range embeddedModules(t) {
		m, err := parseSPIRV(w)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(spirvBytes(m.words()), spirvBytes(w)) {
			t.Errorf("%s: the round trip changed the module", name)
		}
	}
}

// TestNVToKHRLeavesOthers: modules without NV cooperative matrices are not rewritten by
// the pipeline (declaresNVCoop is false) and nvToKHR refuses them.
func TestNVToKHRLeavesOthers(t *testing.T) {
	nv := nvModules(t)
	for name, w := range embeddedModules(t) {
		if nv[name] != nil {
			continue
		}
		if _, err := nvToKHR(w); err == nil {
			t.Errorf("%s: nvToKHR rewrote a module without OpTypeCooperativeMatrixNV", name)
		}
	}
}

// TestNVToKHR checks the rewrite of every embedded NV module word by word.
func TestNVToKHR(t *testing.T) {
	for name, w := range nvModules(t) {
		t.Run(name, func(t *testing.T) {
			orig := append([]uint32(nil), w...)
			out, err := nvToKHR(w)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(spirvBytes(w), spirvBytes(orig)) {
				t.Fatal("nvToKHR changed its input")
			}
			in, _ := parseSPIRV(orig)
			got, err := parseSPIRV(out)
			if err != nil {
				t.Fatalf("the output does not parse: %v", err)
			}
			checkKHR(t, in, got)
		})
	}
}

// checkKHR compares a rewritten module got with its NV original in.
func checkKHR(t *testing.T, in, got *spirvModule) {
	t.Helper()
	count := func(m *spirvModule, op uint32) int {
		n := 0
		for _, x := range m.insts {
			if spirvOp(x) == op {
				n++
			}
		}
		return n
	}
	pairs := [][2]uint32{{opTypeCoopMatNV, opTypeCoopMatKHR}, {opCoopMatLoadNV, opCoopMatLoadKHR},
		{opCoopMatStoreNV, opCoopMatStoreKHR}, {opCoopMatMulAddNV, opCoopMatMulAddKHR}, {opCoopMatLengthNV, opCoopMatLengthKHR}}
	for _, p := range pairs {
		if n := count(got, p[0]); n != 0 {
			t.Errorf("%d instructions of NV opcode %d remain", n, p[0])
		}
		if a, b := count(in, p[0]), count(got, p[1]); a != b {
			t.Errorf("opcode %d: %d NV instructions became %d KHR ones (opcode %d)", p[0], a, b, p[1])
		}
	}
	added := len(got.insts) - len(in.insts) // new OpConstants, 4 words each
	wantWords := len(in.words()) + count(in, opTypeCoopMatNV) + 4*added
	if n := len(got.words()); n != wantWords {
		t.Errorf("%d words, want %d (one Use per type, %d constants)", n, wantWords, added)
	}
	if added < 0 || added > 3 {
		t.Errorf("%d instructions added", added)
	}
	checkHeaderAndCaps(t, got)
	checkOrderAndOperands(t, in, got)
}

// checkHeaderAndCaps checks the id bound, the capability and the extension.
func checkHeaderAndCaps(t *testing.T, got *spirvModule) {
	t.Helper()
	var caps []uint32
	var exts []string
	maxID := uint32(0)
	for _, x := range got.insts {
		switch spirvOp(x) {
		case opCapability:
			caps = append(caps, x[1])
		case opExtension:
			s, _ := spirvString(x[1:])
			exts = append(exts, s)
		case opConstant:
			maxID = max(maxID, x[2])
		}
	}
	has := func(c uint32) bool {
		for _, x := range caps {
			if x == c {
				return true
			}
		}
		return false
	}
	if has(capCoopMatrixNV) || !has(capCoopMatrixKHR) {
		t.Errorf("capabilities %v: want CooperativeMatrixKHR (6022), not CooperativeMatrixNV (5357)", caps)
	}
	if !strings.Contains(strings.Join(exts, " "), extCoopMatKHR) || strings.Contains(strings.Join(exts, " "), extCoopMatrixNV) {
		t.Errorf("extensions %v: want %s, not %s", exts, extCoopMatKHR, extCoopMatrixNV)
	}
	if maxID >= got.header[3] {
		t.Errorf("constant %%%d at or past the id bound %d", maxID, got.header[3])
	}
}

// checkOrderAndOperands checks that every Use and layout operand names an OpConstant of the
// right value declared before its use, that products get their roles' Uses, and that
// loads and stores keep their stride and memory operands with the layout of NV's bool.
func checkOrderAndOperands(t *testing.T, in, got *spirvModule) {
	t.Helper()
	consts := map[uint32]uint32{} // id → value, of the OpConstants declared so far
	bools := map[uint32]uint32{}  // NV's bool constants → layout
	for _, x := range in.insts {
		if op := spirvOp(x); op == opConstantTrue || op == opConstantFalse {
			bools[x[2]] = map[uint32]uint32{opConstantTrue: layoutColMajor, opConstantFalse: layoutRowMajor}[op]
		}
	}
	use := map[uint32]uint32{} // matrix type → Use
	typ := map[uint32]uint32{} // matrix value → type
	var nvMem [][]uint32       // NV loads and stores in order
	for _, x := range in.insts {
		if op := spirvOp(x); op == opCoopMatLoadNV || op == opCoopMatStoreNV {
			nvMem = append(nvMem, x)
		}
	}
	k := 0
	for _, x := range got.insts {
		switch spirvOp(x) {
		case opConstant:
			if len(x) == 4 {
				consts[x[2]] = x[3]
			}
		case opTypeCoopMatKHR:
			v, ok := consts[x[6]]
			if len(x) != 7 || !ok || v > useAccumulator {
				t.Fatalf("matrix type %%%d: Use operand %%%d is no constant 0–2 declared before it", x[1], x[6])
			}
			use[x[1]] = v
		case opCoopMatLoadKHR, opCoopMatStoreKHR:
			at := 3
			if spirvOp(x) == opCoopMatLoadKHR {
				at = 4
			}
			nv := nvMem[k]
			k++
			if v, ok := consts[x[at]]; !ok || v != bools[nv[at+1]] {
				t.Errorf("load/store %d: layout %%%d (value %d, declared %v), want %d", k, x[at], v, ok, bools[nv[at+1]])
			}
			if len(x) != len(nv) || x[at+1] != nv[at] || !slicesEqual(x[at+2:], nv[at+2:]) {
				t.Errorf("load/store %d: %v from %v: stride or memory operands moved", k, x, nv)
			}
		case opCoopMatMulAddKHR:
			if len(x) != 6 {
				t.Errorf("float product with %d words: no signedness operand expected", len(x))
			}
			for i, want := range []uint32{useAccumulator, useMatrixA, useMatrixB, useAccumulator} {
				id := x[1]
				if i > 0 {
					id = typ[x[2+i]]
				}
				if u, ok := use[id]; !ok || u != want {
					t.Errorf("product %%%d: operand %d of type %%%d has Use %d, want %d", x[2], i, id, u, want)
				}
			}
		}
		if len(x) >= 3 && !spirvNoResultType[spirvOp(x)] {
			if _, ok := use[x[1]]; ok {
				typ[x[2]] = x[1]
			}
		}
	}
}

func slicesEqual(a, b []uint32) bool {
	return bytes.Equal(spirvBytes(a), spirvBytes(b))
}

// TestNVToKHRHandmade rewrites a small handmade NV module with integer matrices, a type in
// no product, a length query and a store without memory operands, and checks every word.
func TestNVToKHRHandmade(t *testing.T) {
	// ids: 1 uint, 2 int, 3 scope, 4 sixteen, 5 A type (int8), 6 B type (uint8), 7 acc (int32),
	// 8 unused type, 9 true, 10 false, 11 ptr, 12 stride, 13–16 values, 17 length.
	// Bound 18.
	nv := []uint32{spirvMagic, 0x10300, 0, 18, 0}
	add := func(op uint32, ops ...uint32) { nv = append(nv, spirvInst(op, ops...)...) }
	add(opCapability, capCoopMatrixNV)
	add(opExtension, spirvLiteral(extCoopMatrixNV)...)
	add(opTypeInt, 1, 32, 0)
	add(opTypeInt, 2, 32, 1)
	add(opConstant, 1, 3, 3)
	add(opConstant, 1, 4, 16)
	add(opTypeCoopMatNV, 5, 2, 3, 4, 4)
	add(opTypeCoopMatNV, 6, 1, 3, 4, 4) // same shape as A, other component: another type
	add(opTypeCoopMatNV, 7, 2, 3, 4, 4)
	add(opTypeCoopMatNV, 8, 2, 3, 3, 4) // in no product: an accumulator
	add(opConstantTrue, 99, 9)          // 99: a bool type we do not declare: the rewrite does not look
	add(opConstantFalse, 99, 10)
	add(opCoopMatLoadNV, 5, 13, 11, 12, 9, 0x2)
	add(opCoopMatLoadNV, 6, 14, 11, 12, 10)
	add(opCoopMatLoadNV, 7, 15, 11, 12, 10)
	add(opCoopMatMulAddNV, 7, 16, 13, 14, 15)
	add(opCoopMatStoreNV, 11, 16, 12, 9)
	add(opCoopMatLengthNV, 1, 17, 7)
	out, err := nvToKHR(nv)
	if err != nil {
		t.Fatal(err)
	}
	// New constants 0 (id 18), 1 (19), 2 (20) before the first matrix type; bound 21.
	want := []uint32{spirvMagic, 0x10300, 0, 21, 0}
	wadd := func(op uint32, ops ...uint32) { want = append(want, spirvInst(op, ops...)...) }
	wadd(opCapability, capCoopMatrixKHR)
	wadd(opExtension, spirvLiteral(extCoopMatKHR)...)
	wadd(opTypeInt, 1, 32, 0)
	wadd(opTypeInt, 2, 32, 1)
	wadd(opConstant, 1, 3, 3)
	wadd(opConstant, 1, 4, 16)
	wadd(opConstant, 1, 18, 0)
	wadd(opConstant, 1, 19, 1)
	wadd(opConstant, 1, 20, 2)
	wadd(opTypeCoopMatKHR, 5, 2, 3, 4, 4, 18)
	wadd(opTypeCoopMatKHR, 6, 1, 3, 4, 4, 19)
	wadd(opTypeCoopMatKHR, 7, 2, 3, 4, 4, 20)
	wadd(opTypeCoopMatKHR, 8, 2, 3, 3, 4, 20)
	wadd(opConstantTrue, 99, 9)
	wadd(opConstantFalse, 99, 10)
	wadd(opCoopMatLoadKHR, 5, 13, 11, 19, 12, 0x2)
	wadd(opCoopMatLoadKHR, 6, 14, 11, 18, 12)
	wadd(opCoopMatLoadKHR, 7, 15, 11, 18, 12)
	wadd(opCoopMatMulAddKHR, 7, 16, 13, 14, 15, signedA|signedC|signedResult)
	wadd(opCoopMatStoreKHR, 11, 16, 19, 12)
	wadd(opCoopMatLengthKHR, 1, 17, 7)
	if !slicesEqual(out, want) {
		t.Errorf("rewrite:\n got %v\nwant %v", out, want)
	}
}

// TestNVToKHRConversionUse: a type in no product takes the Use of the type it is converted
// to (KHR conversions keep the Use), not the accumulator's.
func TestNVToKHRConversionUse(t *testing.T) {
	w := []uint32{spirvMagic, 0x10300, 0, 30, 0}
	for _, x := range [][]uint32{spirvInst(opCapability, capCoopMatrixNV), spirvInst(opTypeInt, 1, 32, 0),
		spirvInst(22, 2, 32), spirvInst(22, 20, 16), spirvInst(opConstant, 1, 3, 3), spirvInst(opConstant, 1, 4, 16),
		spirvInst(opTypeCoopMatNV, 5, 20, 3, 4, 4), spirvInst(opTypeCoopMatNV, 6, 20, 3, 3, 4), // A, B (f16)
		spirvInst(opTypeCoopMatNV, 7, 2, 3, 4, 4), spirvInst(opTypeCoopMatNV, 9, 2, 3, 3, 4), // acc, B's f32 source
		spirvInst(opConstantFalse, 99, 10), spirvInst(opCoopMatLoadNV, 5, 13, 11, 12, 10),
		spirvInst(opCoopMatLoadNV, 9, 18, 11, 12, 10), spirvInst(115, 6, 19, 18), // OpFConvert
		spirvInst(opCoopMatLoadNV, 7, 15, 11, 12, 10), spirvInst(opCoopMatMulAddNV, 7, 16, 13, 19, 15)} {
		w = append(w, x...)
	}
	out, err := nvToKHR(w)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := parseSPIRV(out)
	consts, uses := map[uint32]uint32{}, map[uint32]uint32{}
	for _, x := range m.insts {
		switch spirvOp(x) {
		case opConstant:
			consts[x[2]] = x[3]
		case opTypeCoopMatKHR:
			uses[x[1]] = consts[x[6]]
		}
	}
	want := map[uint32]uint32{5: useMatrixA, 6: useMatrixB, 7: useAccumulator, 9: useMatrixB}
	for id, u := range want {
		if uses[id] != u {
			t.Errorf("type %%%d: Use %d, want %d", id, uses[id], u)
		}
	}
}

// TestNVToKHRRefuses: a type in two roles, a conversion across Uses and a runtime layout
// are errors, not a wrong module.
func TestNVToKHRRefuses(t *testing.T) {
	base := func(extra ...[]uint32) []uint32 {
		w := []uint32{spirvMagic, 0x10300, 0, 30, 0}
		for _, x := range [][]uint32{spirvInst(opCapability, capCoopMatrixNV), spirvInst(opTypeInt, 1, 32, 0),
			spirvInst(opConstant, 1, 3, 3), spirvInst(opConstant, 1, 4, 16), spirvInst(opTypeCoopMatNV, 5, 1, 3, 4, 4),
			spirvInst(opTypeCoopMatNV, 6, 1, 3, 4, 4), spirvInst(opConstantFalse, 99, 10)} {
			w = append(w, x...)
		}
		for _, x := range extra {
			w = append(w, x...)
		}
		return w
	}
	cases := map[string][][]uint32{
		"two roles": {spirvInst(opCoopMatLoadNV, 5, 13, 11, 12, 10), spirvInst(opCoopMatLoadNV, 6, 15, 11, 12, 10),
			spirvInst(opCoopMatMulAddNV, 6, 16, 13, 13, 15)},
		"conversion across Uses": {spirvInst(opTypeCoopMatNV, 7, 1, 3, 4, 4), spirvInst(opCoopMatLoadNV, 5, 13, 11, 12, 10),
			spirvInst(opCoopMatLoadNV, 6, 14, 11, 12, 10), spirvInst(opCoopMatLoadNV, 7, 15, 11, 12, 10),
			spirvInst(opCoopMatMulAddNV, 7, 16, 13, 14, 15), spirvInst(115, 5, 17, 16)}, // accumulator to A
		"runtime layout":  {spirvInst(opCoopMatLoadNV, 5, 13, 11, 12, 20)},
		"untyped operand": {spirvInst(opCoopMatMulAddNV, 6, 16, 13, 21, 15)},
		"short load":      {spirvInst(opCoopMatLoadNV, 5, 13, 11)},
	}
	for name, extra := range cases {
		if _, err := nvToKHR(base(extra...)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := nvToKHR(base()); err != nil {
		t.Errorf("the base module: %v", err)
	}
}

// FuzzSPIRV: no input makes the parser or the rewrite panic, and a parsed module joins back
// to its input.
func FuzzSPIRV(f *testing.F) {
	for _, name := range []string{"linearcm", "norm"} {
		code, err := spirv.ReadFile("shaders/" + name + ".spv")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(code)
	}
	f.Add([]byte{3, 2, 0x23, 7, 0, 3, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, code []byte) {
		w, err := spirvWords(code)
		if err != nil {
			return
		}
		m, err := parseSPIRV(w)
		if err == nil && !slicesEqual(m.words(), w) {
			t.Fatal("the round trip changed the module")
		}
		if out, err := nvToKHR(w); err == nil && len(out) > len(w)+len(w)/5+12 {
			t.Fatalf("%d words in, %d out", len(w), len(out))
		}
		declaresNVCoop(w)
	})
}

// spirvValKHR returns a spirv-val that knows SPV_KHR_cooperative_matrix: $KLEINBILD_SPIRV_VAL
// or spirv-val on the PATH ("" with why when neither does). SPIRV-Tools 2023.1 of Debian
// bookworm does not; 2025.1 of Debian trixie does (on bookworm it runs with trixie's libc6
// and libstdc++6 unpacked beside it, through their ld-linux-x86-64.so.2 --library-path).
func spirvValKHR(t *testing.T) (string, string) {
	tool := os.Getenv("KLEINBILD_SPIRV_VAL")
	if tool == "" {
		var err error
		if tool, err = exec.LookPath("spirv-val"); err != nil {
			return "", "no spirv-val"
		}
	}
	// The probe: capabilities and memory model only, valid for a validator that knows 6022.
	probe := []uint32{spirvMagic, 0x10300, 0, 1, 0}
	for _, x := range [][]uint32{spirvInst(opCapability, 1), spirvInst(opCapability, 5), spirvInst(opCapability, 5345),
		spirvInst(opCapability, capCoopMatrixKHR), spirvInst(opExtension, spirvLiteral(extCoopMatKHR)...),
		spirvInst(opExtension, spirvLiteral("SPV_KHR_vulkan_memory_model")...), spirvInst(14, 0, 3)} {
		probe = append(probe, x...)
	}
	path := filepath.Join(t.TempDir(), "probe.spv")
	if err := os.WriteFile(path, spirvBytes(probe), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, path).CombinedOutput(); err != nil {
		return "", tool + " does not know SPV_KHR_cooperative_matrix: " + strings.TrimSpace(string(out))
	}
	return tool, ""
}

// TestNVToKHRValidates runs spirv-val on every rewritten module (and its NV original),
// where a spirv-val knows SPV_KHR_cooperative_matrix (KLEINBILD_SPIRV_VAL names one).
func TestNVToKHRValidates(t *testing.T) {
	tool, why := spirvValKHR(t)
	if tool == "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	for name, w := range nvModules(t) {
		out, err := nvToKHR(w)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join(dir, name+".spv")
		if err := os.WriteFile(path, spirvBytes(out), 0o600); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(tool, "--target-env", "vulkan1.1", path).CombinedOutput(); err != nil {
			t.Errorf("%s: spirv-val of the KHR module: %v\n%s", name, err, msg)
		}
	}
}
