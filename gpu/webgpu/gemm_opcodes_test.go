//go:build cgo

package webgpu

import (
	"regexp"
	"testing"
)

// TestOpcodesNamed checks that the shaders that switch on an op code name every code of
// its Go definition and compare the code with no numeric literal.
func TestOpcodesNamed(t *testing.T) {
	literal := regexp.MustCompile(`case [0-9]+u?:|(op|mode) [!=]= [0-9]+u?`)
	for _, c := range []struct {
		file, src string
		ops       []opcode
	}{
		{"elementwise.wgsl", elementwiseWGSL, elementwiseOps},
		{"norm.wgsl", normWGSL, normOps[:2]}, // GroupNorm is the fall-through
		{"layout.wgsl", layoutWGSL, layoutOps},
	} {
		if m := literal.FindString(c.src); m != "" {
			t.Errorf("%s compares an op code with a literal: %q", c.file, m)
		}
		for _, o := range c.ops {
			if !regexp.MustCompile(`\b` + o.name + `\b`).MatchString(c.src) {
				t.Errorf("%s does not use %s", c.file, o.name)
			}
		}
	}
	if got, want := wgslConsts(opcode{"A", 0}, opcode{"B", 7}), "const A: u32 = 0u;\nconst B: u32 = 7u;\n"; got != want {
		t.Errorf("wgslConsts = %q, want %q", got, want)
	}
}
