package backends

import (
	"os"
	"slices"
	"strings"
	"testing"

	"kleinbild/gpu"
)

// TestOpen: every listed backend opens by its name in any case, "" and "default" open the
// default, and an unknown name fails with the list of available ones.
func TestOpen(t *testing.T) {
	names := Names()
	if !slices.Contains(names, "purego") {
		t.Fatalf("Names() = %v lacks purego", names)
	}
	if names[0] != DefaultCPU().Name() {
		t.Errorf("Names()[0] = %q, DefaultCPU() = %q", names[0], DefaultCPU().Name())
	}
	def := Default()
	defer def.Close()
	for _, n := range []string{"", "default", "DEFAULT"} {
		b, err := Open(n)
		if err != nil {
			t.Fatalf("Open(%q): %v", n, err)
		}
		if b.Name() != def.Name() {
			t.Errorf("Open(%q) = %q, want %q", n, b.Name(), def.Name())
		}
		b.Close()
	}
	for _, n := range names {
		b, err := Open(strings.ToUpper(n))
		if err != nil {
			t.Logf("Open(%q): %v", n, err) // a GPU backend may have no adapter here
			continue
		}
		if b.Name() != n {
			t.Errorf("Open(%q).Name() = %q", n, b.Name())
		}
		info := b.Info()
		t.Logf("%s: %+v", n, info)
		if info.Name == "" || info.API == "" {
			t.Errorf("%s: incomplete Info %+v", n, info)
		}
		if err := b.Close(); err != nil {
			t.Errorf("%s: Close: %v", n, err)
		}
	}
	_, err := Open("no-such-backend")
	if err == nil || !strings.Contains(err.Error(), "purego") {
		t.Errorf("Open(no-such-backend) error %v, want one listing the backends", err)
	}
	if DefaultCPU().Info().Kind != gpu.KindCPU {
		t.Errorf("DefaultCPU() is not a CPU backend: %+v", DefaultCPU().Info())
	}
	if k := def.Info().Kind; k == gpu.KindSoftware && os.Getenv(EnvBackend) == "" {
		t.Errorf("Default() picked a software adapter: %+v", def.Info())
	}
}
