package cli

import (
	"errors"
	"fmt"
	"io"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// selfCheck (devices --selfcheck) opens every device whose backend has matrix-unit kernels
// with plain twins (gpu.SelfChecker: vulkan) and prints, per device, a line saying what it
// has and one per kernel check: the twin, the product, the rel-L2 and max difference and
// "ok" or "FAILED". A failed check is an error (exit 1); a device without matrix units checks
// nothing and says so.
func selfCheck(ds []backends.Device, w io.Writer) error {
	failed, seen := 0, false
	for _, d := range ds {
		if d.Backend != "vulkan" {
			continue
		}
		seen = true
		b, err := backends.Open(d.ID)
		if err != nil {
			fmt.Fprintf(w, "Self-check %s: cannot open: %s\n", d.ID, plainBackendError(err))
			failed++
			continue
		}
		n, err := selfCheckDevice(d.ID, b, w)
		b.Close()
		if err != nil {
			fmt.Fprintf(w, "Self-check %s: %v\n", d.ID, err)
			n++
		}
		failed += n
	}
	if !seen {
		fmt.Fprintln(w, "Self-check: no device with matrix-unit kernels (the Vulkan backend finds no device)")
	}
	if failed > 0 {
		return fmt.Errorf("self-check: %d failed", failed)
	}
	return nil
}

// selfCheckDevice runs b's self-check and prints it; it returns the number of failed checks.
func selfCheckDevice(id string, b gpu.Backend, w io.Writer) (int, error) {
	sc, ok := b.(gpu.SelfChecker)
	if !ok {
		return 0, errors.New("the backend has no self-check")
	}
	checks, note, err := sc.SelfCheck()
	fmt.Fprintf(w, "Self-check %s: %s\n", id, note)
	failed := 0
	for _, c := range checks {
		verdict := "ok"
		if !c.OK() {
			verdict = "FAILED"
			failed++
		}
		fmt.Fprintf(w, "  %s vs %s, %s: rel-L2 %.3g, max diff %.3g (tol %.1g) %s\n", c.Kernel, c.Twin, c.Shape, c.RelL2, c.MaxDiff, c.Tol, verdict)
	}
	return failed, err
}
