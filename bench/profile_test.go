package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/gpu/vulkan"
	"kleinbild/gpu/webgpu"
	"kleinbild/randmodel"
	"kleinbild/weights/golden"
)

// TestProfileWebGPU benchmarks a tiny random model once on the WebGPU device (lavapipe on CI)
// with Options.Profile: the run records the GPU time per op of its steps and its decoding,
// and the table prints each op's share.
func TestProfileWebGPU(t *testing.T) {
	testProfile(t, "webgpu", webgpu.Compiled, "KLEINBILD_REQUIRE_WEBGPU")
}

// TestProfileVulkan is TestProfileWebGPU on the Vulkan device (lavapipe on CI), run by make
// test-vulkan-all (KLEINBILD_BACKEND=vulkan): about a minute on a loaded 2-core machine, and
// gpu/vulkan's TestProfile covers the backend's timestamps in make test.
func TestProfileVulkan(t *testing.T) {
	if os.Getenv("KLEINBILD_BACKEND") != "vulkan" {
		t.Skip("KLEINBILD_BACKEND=vulkan runs it (make test-vulkan-all)")
	}
	testProfile(t, "vulkan", vulkan.Compiled, "KLEINBILD_REQUIRE_VULKAN")
}

// testProfile runs the profiled benchmark on backend name; require names the variable that
// makes a missing device an error.
func testProfile(t *testing.T, name string, compiled bool, require string) {
	if !compiled {
		t.Skipf("no %s in this build", name)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // no tuning of the user's applies
	b, err := backends.Open(name)
	if err != nil {
		if os.Getenv(require) == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer b.Close()
	dir := filepath.Join(t.TempDir(), "m")
	if _, err := randmodel.Create(context.Background(), dir, randmodel.Options{Variant: randmodel.Tiny, Seed: 1, Tokenizer: golden.TinyModel(t)}); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{ModelDir: dir, Sizes: []int{32}, Steps: 1, PeakReps: -1, Backend: b, Single: true, Profile: true})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Runs[0].Profile
	if p == nil || p.Steps != 1 {
		t.Fatalf("profile %+v: want one of 1 step", p)
	}
	ops := map[string]bool{}
	for _, o := range p.Step {
		ops[o.Op] = o.Seconds > 0 && o.Dispatches > 0
	}
	for _, want := range []string{"Linear", "Attention"} {
		if !ops[want] {
			t.Errorf("the steps' profile lacks timed %s: %+v", want, p.Step)
		}
	}
	dec := map[string]bool{}
	for _, o := range p.Decode {
		dec[o.Op] = o.Seconds > 0
	}
	if !dec["Conv2D"] || ops["Conv2D"] {
		t.Errorf("decode profile %+v, steps %+v: want Conv2D in the decoding only", p.Decode, p.Step)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"GPU time per op", "one step", "Linear", "%"} {
		if !strings.Contains(table.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, table.String())
		}
	}
	t.Log("\n" + table.String())
}
