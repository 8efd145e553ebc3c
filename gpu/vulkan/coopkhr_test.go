//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"kleinbild/gpu"
)

// TestCoopKHRStruct checks VkCooperativeMatrixPropertiesKHR's size against vulkan_core.h
// on 64-bit platforms.
func TestCoopKHRStruct(t *testing.T) {
	if n := unsafe.Sizeof(coopMatrixPropertiesKHR{}); n != 56 {
		t.Errorf("VkCooperativeMatrixPropertiesKHR: %d bytes, want 56", n)
	}
}

// TestUseKHR: KHR where the device lacks NV, or where forced; NV otherwise.
func TestUseKHR(t *testing.T) {
	nv, khr := extCoopMatrixNVName, extCoopMatrixKHRName
	for _, c := range []struct {
		exts        []string
		force, want bool
	}{
		{[]string{khr}, false, true},      // AMD, Intel
		{[]string{nv, khr}, false, false}, // NVIDIA: NV by default
		{[]string{nv, khr}, true, true},   // NVIDIA, forced
		{[]string{nv}, true, false},       // forced, but no KHR
		{nil, true, false},
	} {
		exts := map[string]bool{}
		for _, e := range c.exts {
			exts[e] = true
		}
		if got := useKHR(exts, c.force); got != c.want {
			t.Errorf("useKHR(%v, force %v) = %v", c.exts, c.force, got)
		}
	}
	t.Setenv(coopEnv, "khr")
	if !forceKHR(Options{}) {
		t.Errorf("%s=khr does not force KHR", coopEnv)
	}
	t.Setenv(coopEnv, "")
	if forceKHR(Options{}) || !forceKHR(Options{CoopKHR: true}) {
		t.Error("forceKHR ignores its options or forces without them")
	}
}

// TestUnitExtensionsFor: the KHR list is the NV one with the cooperative matrix extension
// swapped, and the NV list is left alone.
func TestUnitExtensionsFor(t *testing.T) {
	nv := append([]string(nil), unitExtensions...)
	k := unitExtensionsFor(true)
	if !slices.Contains(k, extCoopMatrixKHRName) || slices.Contains(k, extCoopMatrixNVName) || len(k) != len(nv) {
		t.Errorf("KHR extensions %v", k)
	}
	if got := unitExtensionsFor(false); !slices.Equal(got, nv) || !slices.Equal(unitExtensions, nv) {
		t.Errorf("NV extensions %v, then %v", got, unitExtensions)
	}
}

// TestKernelSPIRV: with KHR units the NV kernels are rewritten when the pipeline is built
// and the others are not; with NV units or none nothing is.
func TestKernelSPIRV(t *testing.T) {
	nv := nvModules(t)
	for _, units := range []*matrixUnits{nil, {m: 16, n: 16, k: 16, subgroup: 32}, {m: 16, n: 16, k: 16, subgroup: 32, khr: true}} {
		b := &Backend{units: units}
		for name, w := range embeddedModules(t) {
			got, err := b.kernelSPIRV(w)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rewritten := !slicesEqual(got, w)
			if want := units != nil && units.khr && nv[name] != nil; rewritten != want {
				t.Errorf("%s with units %v: rewritten %v, want %v", name, units, rewritten, want)
			}
			if rewritten && declaresNVCoop(got) {
				t.Errorf("%s: the rewritten module still declares CooperativeMatrixNV", name)
			}
		}
	}
}

// TestCoopKHROption opens the device with the KHR path forced: lavapipe has no cooperative
// matrices of either kind, so the fast precision runs the twin and says why.
func TestCoopKHROption(t *testing.T) {
	gb, err := New(Options{Device: -1, CoopKHR: true})
	if err != nil {
		openTest(t) // skips without Vulkan, fails where it is required
		t.Fatal(err)
	}
	b := gb.(*Backend)
	defer b.Close()
	note, err := b.SetPrecision(gpu.PrecisionFast)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", note)
	if b.units == nil && !strings.Contains(note, "twin") {
		t.Errorf("no units, but the note %q names no twin", note)
	}
	if b.units != nil && !b.units.khr {
		t.Errorf("CoopKHR set, but the units are %v", b.units)
	}
}
