//go:build cgo

package webgpu

import (
	"testing"

	"kleinbild/gpu/gputest"
)

// TestGemmVariants forces every variant of Linear and Conv2D and runs the conformance
// suite's Linear and Conv2D checks on it (tolerances as the suite states them). TestGemmForms
// covers the forms those shapes do not reach.
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
				// Linear's long cases have at most 3 rows: every variant runs them on the
				// same small-M tile, which TestConformance covers in full.
				o := gputest.Options{Short: testing.Short() || fam == FamilyLinear, LogErrors: *logErrors}
				if fam == FamilyLinear {
					gputest.TestLinear(t, b, o)
				} else {
					gputest.TestConv2D(t, b, o)
				}
			})
		}
	}
}
