//go:build cgo

package webgpu

import (
	"fmt"
	"strings"
)

// opcode is one code a shader switches on: the Go constant's value under the name WGSL
// reads. The Go constants (ew*, norm*, ly*) are the one definition; each kernel's source
// starts with a WGSL const prelude made from them (wgslConsts), so the shaders name the
// codes instead of repeating their values.
type opcode struct {
	name string
	val  int
}

// wgslConsts is the WGSL prelude declaring ops as u32 constants.
func wgslConsts(ops ...opcode) string {
	var s strings.Builder
	for _, o := range ops {
		fmt.Fprintf(&s, "const %s: u32 = %du;\n", o.name, o.val)
	}
	return s.String()
}

// The op codes of elementwise.wgsl, norm.wgsl and layout.wgsl.
var (
	elementwiseOps = []opcode{{"EW_ADD", ewAdd}, {"EW_MUL", ewMul}, {"EW_ADD_SCALED", ewAddScaled},
		{"EW_GUIDANCE", ewGuidance}, {"EW_SILU", ewSiLU}, {"EW_COPY", ewCopy}, {"EW_GATED_ADD", ewGatedAdd}}
	normOps   = []opcode{{"NORM_RMS", normRMS}, {"NORM_LAYER", normLayer}, {"NORM_GROUP", normGroup}}
	layoutOps = []opcode{{"LY_TRANSPOSE", lyTranspose}, {"LY_PATCHIFY", lyPatchify}, {"LY_UNPATCHIFY", lyUnpatchify},
		{"LY_UPSAMPLE", lyUpsample}, {"LY_SWIGLU", lySwiGLU}, {"LY_BATCHNORM", lyBatchNorm}, {"LY_ROPE", lyRoPE}}
)
