package app

import (
	"testing"

	"kleinbild/estimate"
)

// The references are encoded for every image of a run, the prompt once.
func TestRunSecondsReferencesPerImage(t *testing.T) {
	p := estimate.Phases{Load: 1, Encode: 2, References: 3, Denoise: 4, Decode: 5}
	if got := runSeconds(p, 3); got != 1+2+3*(3+4+5)+(4+5) { // with the first image's warm-up (warmup.go)
		t.Errorf("3 images: %v s", got)
	}
	p.Load = 0 // a loaded model warms up no more
	if got := runSeconds(p, 3); got != 2+3*(3+4+5) {
		t.Errorf("3 images on a loaded model: %v s", got)
	}
}

func near(got, want float64) bool { return got > want*0.999999 && got < want*1.000001 }
