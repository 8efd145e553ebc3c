//go:build cgo

package webgpu

import (
	"testing"

	"kleinbild/gpu/gputest"
)

// TestGemmVariants forces every variant of Linear and Conv2D and runs the conformance
// suite's Linear and Conv2D checks on it (tolerances as the suite states them).
func TestGemmVariants(t *testing.T) {
	b := open(t)
	for _, fam := range []string{FamilyLinear, FamilyConv} {
		names := b.Variants(fam)
		if len(names) < 2 {
			t.Errorf("%s: %d variants fit this adapter", fam, len(names))
		}
		for _, v := range names {
			t.Run(fam+"/"+v, func(t *testing.T) {
				if err := b.SetVariant(fam, v); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = b.SetVariant(fam, names[0]) })
				o := gputest.Options{Short: testing.Short(), LogErrors: *logErrors}
				if fam == FamilyLinear {
					gputest.TestLinear(t, b, o)
				} else {
					gputest.TestConv2D(t, b, o)
				}
				for k := range b.pipes {
					t.Log(k)
				}
			})
		}
	}
}
