package backends

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Choice is a device choice resolved by Resolve.
type Choice struct {
	// ID is the device to open (Open): a backend name or "webgpu:N"; "" is the automatic
	// choice (Default, with no override in force).
	ID string
	// FromEnv is true when ID is the value of $KLEINBILD_BACKEND.
	FromEnv bool
}

// Resolve settles a device choice and opens nothing. id, a flag's or a setting's, names
// the device; "" or "default" defers to $KLEINBILD_BACKEND (EnvID) and, without it, to the
// automatic choice (Choice{}). A name this binary cannot open (Known) is an error, with the
// Choice saying where it came from: an unknown $KLEINBILD_BACKEND is never silently
// replaced here (front ends say so, then fall back or stop).
func Resolve(id string) (Choice, error) {
	c := Choice{ID: strings.TrimSpace(id)}
	if c.ID == "" || strings.EqualFold(c.ID, "default") {
		c = Choice{ID: EnvID(), FromEnv: true}
		if c.ID == "" {
			return Choice{}, nil
		}
	}
	if !Known(c.ID) {
		return c, fmt.Errorf("unknown device %q", c.ID)
	}
	return c, nil
}

// EnvID is the device $KLEINBILD_BACKEND names, trimmed: "" when it is unset or "default".
func EnvID() string {
	id := strings.TrimSpace(os.Getenv(EnvBackend))
	if strings.EqualFold(id, "default") {
		return ""
	}
	return id
}

// Known reports whether id names a device this binary could open: "" or "default", a
// compiled backend (Names), or "webgpu:N" or "vulkan:N" where that backend is compiled.
func Known(id string) bool { return KnownIn(id, Names()) }

// KnownIn is Known against the given backend names (a build's Names).
func KnownIn(id string, names []string) bool {
	id = strings.TrimSpace(id)
	if id == "" || strings.EqualFold(id, "default") {
		return true
	}
	name, idx, indexed := strings.Cut(id, ":")
	compiled := false // name is a backend of the build whose devices are numbered
	for _, n := range names {
		if strings.EqualFold(n, id) {
			return true
		}
		compiled = compiled || (indexed && strings.EqualFold(n, name) && (n == "webgpu" || n == "vulkan"))
	}
	if !compiled {
		return false
	}
	n, err := strconv.Atoi(idx)
	return err == nil && n >= 0
}

// CPUID is the ID of the best CPU backend of this build, the one DefaultCPU opens.
func CPUID() string { return cpuEntries()[0].name }
