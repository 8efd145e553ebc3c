//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"errors"
	"fmt"
	"slices"
)

// The rewrite of SPV_NV_cooperative_matrix modules (what glslang 12 emits for
// GL_NV_cooperative_matrix) into SPV_KHR_cooperative_matrix ones, for devices with only
// VK_KHR_cooperative_matrix (AMD, Intel). Numbers from the SPIR-V registry: the unified
// specification and SPV_{NV,KHR}_cooperative_matrix.
const (
	opExtension        = 10
	opCapability       = 17
	opTypeInt          = 21
	opConstantTrue     = 41
	opConstantFalse    = 42
	opConstant         = 43
	opConstantNull     = 46
	opFunction         = 54
	capCoopMatrixNV    = 5357
	capCoopMatrixKHR   = 6022
	opTypeCoopMatNV    = 5358 // Result, Component Type, Scope, Rows, Columns
	opCoopMatLoadNV    = 5359 // Result Type, Result, Pointer, Stride, Column Major, [Memory Access]
	opCoopMatStoreNV   = 5360 // Pointer, Object, Stride, Column Major, [Memory Access]
	opCoopMatMulAddNV  = 5361 // Result Type, Result, A, B, C
	opCoopMatLengthNV  = 5362 // Result Type, Result, Type
	opTypeCoopMatKHR   = 4456 // Result, Component Type, Scope, Rows, Columns, Use
	opCoopMatLoadKHR   = 4457 // Result Type, Result, Pointer, MemoryLayout, [Stride], [Memory Operand]
	opCoopMatStoreKHR  = 4458 // Pointer, Object, MemoryLayout, [Stride], [Memory Operand]
	opCoopMatMulAddKHR = 4459 // Result Type, Result, A, B, C, [Cooperative Matrix Operands]
	opCoopMatLengthKHR = 4460 // Result Type, Result, Type

	useMatrixA      = 0   // MatrixAKHR
	useMatrixB      = 1   // MatrixBKHR
	useAccumulator  = 2   // MatrixAccumulatorKHR
	layoutRowMajor  = 0   // RowMajorKHR
	layoutColMajor  = 1   // ColumnMajorKHR
	signedA         = 0x1 // MatrixASignedComponentsKHR
	signedB         = 0x2
	signedC         = 0x4
	signedResult    = 0x8
	extCoopMatrixNV = "SPV_NV_cooperative_matrix"
	extCoopMatKHR   = "SPV_KHR_cooperative_matrix"
)

// Opcodes whose first operand is not a result type although it may name a type: debug,
// annotation and mode-setting instructions (OpSource…OpLine, OpExtension…OpCapability,
// OpDecorate…OpGroupMemberDecorate, OpNoLine, OpModuleProcessed, OpExecutionModeId,
// OpDecorateId, OpDecorateString, OpMemberDecorateString).
var spirvNoResultType = map[uint32]bool{2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true,
	10: true, 11: true, 14: true, 15: true, 16: true, 17: true, 71: true, 72: true, 73: true, 74: true,
	75: true, 317: true, 330: true, 331: true, 332: true, 5632: true, 5633: true}

// The conversions whose operand and result must keep the Use in KHR (OpConvertFToU …
// OpFConvert, OpBitcast).
var spirvConversions = map[uint32]bool{109: true, 110: true, 111: true, 112: true, 113: true, 114: true, 115: true, 124: true}

// declaresNVCoop reports whether words is a SPIR-V module declaring the CooperativeMatrixNV
// capability.
func declaresNVCoop(words []uint32) bool {
	m, err := parseSPIRV(words)
	if err != nil {
		return false
	}
	for _, in := range m.insts {
		if spirvOp(in) == opCapability && len(in) == 2 && in[1] == capCoopMatrixNV {
			return true
		}
	}
	return false
}

// nvToKHR rewrites a SPV_NV_cooperative_matrix module into a SPV_KHR_cooperative_matrix one:
// the capability and extension, each matrix type with the Use its products give it (A, B or
// accumulator; a type in no product is an accumulator), loads and stores with a layout
// constant for NV's column-major bool, products with the signedness of integer components
// as operands, and the length query. It fails on modules KHR cannot express as they stand:
// a type used in two roles, or a conversion between types of different Use.
func nvToKHR(words []uint32) ([]uint32, error) {
	m, err := parseSPIRV(words)
	if err != nil {
		return nil, err
	}
	r := &khrRewrite{m: m, types: map[uint32]int{}, values: map[uint32]uint32{}, defs: map[uint32][]uint32{}, consts: map[uint32]uint32{}}
	if err := r.index(); err != nil {
		return nil, err
	}
	if err := r.deriveUses(); err != nil {
		return nil, err
	}
	if err := r.constants(); err != nil {
		return nil, err
	}
	if err := r.rewrite(); err != nil {
		return nil, err
	}
	return m.words(), nil
}

// khrRewrite is the state of one nvToKHR.
type khrRewrite struct {
	m      *spirvModule
	first  int                 // index of the first NV matrix type
	types  map[uint32]int      // NV matrix type id → index of its declaration
	uses   map[uint32]int      // NV matrix type id → bit set of 1<<use
	values map[uint32]uint32   // value id → its NV matrix type
	defs   map[uint32][]uint32 // id → its declaring type or constant instruction
	consts map[uint32]uint32   // 0, 1, 2 → id of a 32-bit integer constant of that value
}

// index finds the matrix types, the values of those types and the declarations of types and
// constants.
func (r *khrRewrite) index() error {
	r.first = -1
	for i, in := range r.m.insts {
		switch op := spirvOp(in); {
		case op == opTypeCoopMatNV:
			if len(in) != 6 {
				return fmt.Errorf("spirv: OpTypeCooperativeMatrixNV of %d words", len(in))
			}
			r.types[in[1]] = i
			r.defs[in[1]] = in
			if r.first < 0 {
				r.first = i
			}
		case op == opTypeInt && len(in) == 4:
			r.defs[in[1]] = in
		case (op == opConstant || op == opConstantTrue || op == opConstantFalse || op == opConstantNull) && len(in) >= 3:
			r.defs[in[2]] = in
		}
	}
	if r.first < 0 {
		return errors.New("spirv: no OpTypeCooperativeMatrixNV")
	}
	for _, in := range r.m.insts {
		if op := spirvOp(in); len(in) >= 3 && !spirvNoResultType[op] && op != opFunction && op != opTypeCoopMatNV {
			if _, ok := r.types[in[1]]; ok {
				r.values[in[2]] = in[1]
			}
		}
	}
	return nil
}

// deriveUses gives each matrix type its Use from the products, then across conversions.
func (r *khrRewrite) deriveUses() error {
	r.uses = map[uint32]int{}
	mark := func(id uint32, use int, isValue bool) error {
		t := id
		if isValue {
			var ok bool
			if t, ok = r.values[id]; !ok {
				return fmt.Errorf("spirv: operand %%%d of a matrix product has no cooperative matrix type", id)
			}
		}
		if _, ok := r.types[t]; !ok {
			return fmt.Errorf("spirv: %%%d is no cooperative matrix type", t)
		}
		r.uses[t] |= 1 << use
		return nil
	}
	for _, in := range r.m.insts {
		if spirvOp(in) != opCoopMatMulAddNV {
			continue
		}
		if len(in) != 6 {
			return fmt.Errorf("spirv: OpCooperativeMatrixMulAddNV of %d words", len(in))
		}
		for _, e := range []error{mark(in[1], useAccumulator, false), mark(in[3], useMatrixA, true),
			mark(in[4], useMatrixB, true), mark(in[5], useAccumulator, true)} {
			if e != nil {
				return e
			}
		}
	}
	for changed := true; changed; { // a conversion passes a Use to a type in no product
		changed = false
		for _, in := range r.m.insts {
			if !spirvConversions[spirvOp(in)] || len(in) != 4 {
				continue
			}
			from, ok := r.values[in[3]]
			if _, isMat := r.types[in[1]]; !isMat || !ok {
				continue
			}
			if r.uses[in[1]] == 0 && r.uses[from] != 0 || r.uses[from] == 0 && r.uses[in[1]] != 0 {
				r.uses[in[1]] |= r.uses[from]
				r.uses[from] |= r.uses[in[1]]
				changed = true
			} else if r.uses[in[1]] != r.uses[from] {
				return fmt.Errorf("spirv: a conversion from matrix type %%%d to %%%d changes the Use, which KHR forbids", from, in[1])
			}
		}
	}
	for t := range r.types {
		switch u := r.uses[t]; u {
		case 0:
			r.uses[t] = 1 << useAccumulator
		case 1 << useMatrixA, 1 << useMatrixB, 1 << useAccumulator:
		default:
			return fmt.Errorf("spirv: matrix type %%%d serves in several roles of a product (uses %03b): declare one type per role", t, u)
		}
	}
	return nil
}

// constants finds or declares the 32-bit integer constants 0, 1 and 2 (Use and layout
// operands) before the first matrix type, of the integer type of that type's scope.
func (r *khrRewrite) constants() error {
	scope := r.m.insts[r.first][3]
	sd := r.defs[scope]
	if sd == nil || spirvOp(sd) != opConstant {
		return fmt.Errorf("spirv: the scope %%%d of matrix type %%%d is no OpConstant", scope, r.m.insts[r.first][1])
	}
	intType := sd[1]
	if td := r.defs[intType]; td == nil || td[2] != 32 {
		return fmt.Errorf("spirv: the scope %%%d is no 32-bit integer", scope)
	}
	for _, in := range r.m.insts[:r.first] {
		if spirvOp(in) == opConstant && len(in) == 4 && in[1] == intType && in[3] <= 2 {
			if _, ok := r.consts[in[3]]; !ok {
				r.consts[in[3]] = in[2]
			}
		}
	}
	var add [][]uint32
	for v := uint32(0); v <= 2; v++ {
		if _, ok := r.consts[v]; ok {
			continue
		}
		id := r.m.header[3]
		if id == 0 || id >= 1<<22 { // the bound Vulkan implementations accept
			return fmt.Errorf("spirv: id bound %d leaves no room for constants", id)
		}
		r.m.header[3]++
		r.consts[v] = id
		add = append(add, spirvInst(opConstant, intType, id, v))
	}
	r.m.insts = slices.Insert(r.m.insts, r.first, add...)
	r.first += len(add)
	return nil
}

// layout returns the layout constant for NV's column-major bool b (a constant).
func (r *khrRewrite) layout(b uint32) (uint32, error) {
	d := r.defs[b]
	switch {
	case d == nil:
		return 0, fmt.Errorf("spirv: the column-major operand %%%d is no constant", b)
	case spirvOp(d) == opConstantTrue:
		return r.consts[layoutColMajor], nil
	case spirvOp(d) == opConstantFalse, spirvOp(d) == opConstantNull:
		return r.consts[layoutRowMajor], nil
	}
	return 0, fmt.Errorf("spirv: the column-major operand %%%d is no boolean constant", b)
}

// rewrite replaces the NV capability, extension and instructions by their KHR forms.
func (r *khrRewrite) rewrite() error {
	for i, in := range r.m.insts {
		var err error
		r.m.insts[i], err = r.rewriteInst(in)
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *khrRewrite) rewriteInst(in []uint32) ([]uint32, error) {
	switch spirvOp(in) {
	case opCapability:
		if len(in) == 2 && in[1] == capCoopMatrixNV {
			return spirvInst(opCapability, capCoopMatrixKHR), nil
		}
	case opExtension:
		if s, ok := spirvString(in[1:]); ok && s == extCoopMatrixNV {
			return spirvInst(opExtension, spirvLiteral(extCoopMatKHR)...), nil
		}
	case opTypeCoopMatNV:
		use := uint32(useAccumulator)
		for u := uint32(0); u <= 2; u++ {
			if r.uses[in[1]] == 1<<u {
				use = u
			}
		}
		return spirvInst(opTypeCoopMatKHR, in[1], in[2], in[3], in[4], in[5], r.consts[use]), nil
	case opCoopMatLoadNV, opCoopMatStoreNV:
		return r.memoryInst(in)
	case opCoopMatMulAddNV:
		ops := append([]uint32(nil), in[1:]...)
		if s := r.signedness(in); s != 0 {
			ops = append(ops, s)
		}
		return spirvInst(opCoopMatMulAddKHR, ops...), nil
	case opCoopMatLengthNV:
		if len(in) != 4 {
			return nil, fmt.Errorf("spirv: OpCooperativeMatrixLengthNV of %d words", len(in))
		}
		return spirvInst(opCoopMatLengthKHR, in[1:]...), nil
	}
	return in, nil
}

// memoryInst rewrites a load (…, Pointer, Stride, Column Major, [Memory Access]) or store
// (Pointer, Object, Stride, Column Major, [Memory Access]) into (…, Pointer, MemoryLayout,
// Stride, [Memory Operand]).
func (r *khrRewrite) memoryInst(in []uint32) ([]uint32, error) {
	op, at := uint32(opCoopMatLoadKHR), 4 // the index of Stride
	if spirvOp(in) == opCoopMatStoreNV {
		op, at = opCoopMatStoreKHR, 3
	}
	if len(in) < at+2 {
		return nil, fmt.Errorf("spirv: cooperative matrix load or store (opcode %d) of %d words", spirvOp(in), len(in))
	}
	lay, err := r.layout(in[at+1])
	if err != nil {
		return nil, err
	}
	ops := append([]uint32(nil), in[1:at]...)
	ops = append(ops, lay, in[at])
	ops = append(ops, in[at+2:]...)
	return spirvInst(op, ops...), nil
}

// signedness returns the Cooperative Matrix Operands of a product: NV takes the signedness
// of integer components from their types, KHR from these bits.
func (r *khrRewrite) signedness(in []uint32) uint32 {
	signed := func(t uint32) bool {
		d := r.defs[r.defs[t][2]] // the component type's declaration
		return d != nil && spirvOp(d) == opTypeInt && d[3] == 1
	}
	var s uint32
	for _, c := range []struct {
		t   uint32
		bit uint32
	}{{r.values[in[3]], signedA}, {r.values[in[4]], signedB}, {r.values[in[5]], signedC}, {in[1], signedResult}} {
		if signed(c.t) {
			s |= c.bit
		}
	}
	return s
}
