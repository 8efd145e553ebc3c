package backends

import (
	"slices"
	"testing"
)

// TestResolve: an id wins; "" and "default" defer to $KLEINBILD_BACKEND, and without it
// to the automatic choice; an unknown id or variable is an error saying where it came
// from; "cpu", the app's former id, is not a device.
func TestResolve(t *testing.T) {
	cpu := CPUID()
	for _, c := range []struct {
		env, id string
		want    Choice
		err     bool
	}{
		{"", "", Choice{}, false},
		{"", "default", Choice{}, false},
		{"default", " Default ", Choice{}, false},
		{"", " purego ", Choice{ID: "purego"}, false},
		{cpu, "purego", Choice{ID: "purego"}, false},
		{cpu, "", Choice{ID: cpu, FromEnv: true}, false},
		{" purego ", "default", Choice{ID: "purego", FromEnv: true}, false},
		{"", "nope", Choice{ID: "nope"}, true},
		{"", "cpu", Choice{ID: "cpu"}, true},
		{"nope", "", Choice{ID: "nope", FromEnv: true}, true},
		{"nope", "purego", Choice{ID: "purego"}, false},
	} {
		t.Setenv(EnvBackend, c.env)
		got, err := Resolve(c.id)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("env %q, id %q: %+v, %v; want %+v (error %v)", c.env, c.id, got, err, c.want, c.err)
		}
	}
}

// TestKnownIn: backend names (any case), "default", and webgpu:N or vulkan:N only where
// webgpu or vulkan is a backend of the build (a remembered vulkan:0 was reset at restart).
func TestKnownIn(t *testing.T) {
	with, without := []string{"openblas", "purego", "webgpu", "vulkan"}, []string{"purego"}
	for _, c := range []struct {
		id          string
		with, alone bool
	}{
		{"", true, true}, {"default", true, true}, {"PureGo", true, true}, {"openblas", true, false},
		{"webgpu", true, false}, {"webgpu:1", true, false}, {"WebGPU:0", true, false},
		{"vulkan:0", true, false}, {"Vulkan:2", true, false}, {"vulkan:x", false, false}, {"openblas:0", false, false},
		{"webgpu:-1", false, false}, {"webgpu:x", false, false}, {"cpu", false, false}, {"garbage", false, false},
	} {
		if got := KnownIn(c.id, with); got != c.with {
			t.Errorf("KnownIn(%q, %v) = %v", c.id, with, got)
		}
		if got := KnownIn(c.id, without); got != c.alone {
			t.Errorf("KnownIn(%q, %v) = %v", c.id, without, got)
		}
	}
	if !slices.Contains(Names(), CPUID()) || Names()[0] != CPUID() {
		t.Errorf("CPUID %q is not the first of %v", CPUID(), Names())
	}
	if b := DefaultCPU(); b.Name() != CPUID() {
		t.Errorf("DefaultCPU is %s, CPUID %s", b.Name(), CPUID())
	}
}
