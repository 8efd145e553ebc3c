package vulkan

import (
	"os"
	"testing"
)

// TestIdentities: one identity per device of Devices, in the same order, with the device's
// name and kind and a key that tells devices and drivers apart; KernelHash is stable and
// present exactly when the backend is compiled.
func TestIdentities(t *testing.T) {
	if h := KernelHash(); (h != "") != Compiled || h != KernelHash() {
		t.Errorf("KernelHash %q (compiled %v) or unstable", h, Compiled)
	}
	infos, err := Devices()
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan: %v", err)
	}
	ids, err := Identities()
	if err != nil || len(ids) != len(infos) {
		t.Fatalf("%d identities (%v) for %d devices", len(ids), err, len(infos))
	}
	for i, id := range ids {
		t.Logf("%s", id.Key())
		if id.Name != infos[i].Name || id.Kind != infos[i].Kind || id.VendorID == 0 || id.APIVersion == 0 {
			t.Errorf("device %d: identity %+v, info %+v", i, id, infos[i])
		}
	}
	a := Identity{Name: "x", VendorID: 0x10de, DeviceID: 1, DriverVersion: 1}
	b := a
	b.DriverVersion = 2
	if a.Key() == b.Key() {
		t.Error("a new driver keeps the key")
	}
}
