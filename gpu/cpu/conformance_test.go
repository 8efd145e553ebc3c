package cpu_test

import (
	"flag"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/gpu/gputest"
)

var logErrors = flag.Bool("errors", false, "log rel-L2 and max abs error of every conformance comparison")

// TestConformance runs the conformance suite on every CPU backend compiled into this build
// (purego always, openblas or accelerate where built, onednn where it loads).
func TestConformance(t *testing.T) {
	ran := 0
	for _, name := range backends.Names() {
		b, err := backends.Open(name)
		if err != nil {
			t.Errorf("Open(%q): %v", name, err)
			continue
		}
		if b.Info().Kind != gpu.KindCPU {
			b.Close()
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			defer b.Close()
			gputest.Run(t, b, gputest.Options{
				BF16Activations: name == "onednn", // rounds the activations of bf16 products
				Short:           testing.Short(),
				LogErrors:       *logErrors,
				Quant:           gpu.QuantTypes(),
			})
		})
	}
	if ran == 0 {
		t.Fatalf("no CPU backend among %v", backends.Names())
	}
}
