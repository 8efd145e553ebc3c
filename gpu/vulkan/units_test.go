package vulkan

import (
	"strings"
	"testing"

	"kleinbild/gpu"
)

// TestMatrixUnitsListing: one entry per device of Devices, in the same order; a software
// device (lavapipe) has no matrix units, and an entry names cooperative matrices.
func TestMatrixUnitsListing(t *testing.T) {
	infos, err := Devices()
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	units, err := MatrixUnits()
	if err != nil || len(units) != len(infos) {
		t.Fatalf("%d entries (%v) for %d devices", len(units), err, len(infos))
	}
	for i, u := range units {
		t.Logf("%s: %q", infos[i].Name, u)
		if infos[i].Kind == gpu.KindSoftware && u != "" || u != "" && !strings.Contains(u, "cooperative matrices") {
			t.Errorf("device %d (%s): matrix units %q", i, infos[i].Name, u)
		}
	}
}
