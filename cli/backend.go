package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// BackendHelp is the help of a --backend flag (also the app's, in main.go).
func BackendHelp() string { return backendHelp() }

// CheckBackend returns an error naming the available devices when id is not a device this
// binary knows (see kleinbild devices); it opens nothing.
//
// Without an id the device of $KLEINBILD_BACKEND is checked the same way: a value this binary
// does not know is an error, never silently replaced by the default.
func CheckBackend(id string) error {
	id = strings.TrimSpace(id)
	if id == "" {
		if env := envBackend(); !knownDevice(env) {
			return fmt.Errorf("$%s=%q: unknown device; 'kleinbild devices' lists the devices (unset it for the default)", backends.EnvBackend, env)
		}
		return nil
	}
	if knownDevice(id) {
		return nil
	}
	msg := fmt.Sprintf("unknown device %q", id)
	if _, err := backends.Open(id); err != nil {
		msg = plainBackendError(err, id)
	}
	return fmt.Errorf("--backend %s: %s; 'kleinbild devices' lists the devices", id, msg)
}

// backendHelp describes the --backend values without probing GPU adapters (which takes tens
// of milliseconds): the compiled backends and, where WebGPU is compiled, "webgpu:N".
func backendHelp() string {
	names := backends.Names()
	s := "compute device: " + strings.Join(names, ", ")
	for _, n := range names {
		if n == "webgpu" {
			s += ", webgpu:N (webgpu = the best GPU adapter, a software one included when it is the only one; webgpu:N = adapter N)"
			break
		}
	}
	return s + "; 'kleinbild devices' lists them. Default: a real GPU when there is one and it is not measured slower than the CPU (see kleinbild tune), else the best CPU backend (the exact f32-activation path); $" + backends.EnvBackend + " overrides it"
}

// backendFlag adds the --backend flag, note appended to its help.
func backendFlag(fs *flag.FlagSet, note string) *string {
	return fs.String("backend", "", backendHelp()+note)
}

// knownDevice reports whether id names a device this binary could open: a compiled backend
// (backends.Names), "default", or "webgpu:N" where WebGPU is compiled.
func knownDevice(id string) bool {
	if id == "" || strings.EqualFold(id, "default") {
		return true
	}
	webgpu := false
	for _, n := range backends.Names() {
		if strings.EqualFold(n, id) {
			return true
		}
		webgpu = webgpu || n == "webgpu"
	}
	name, idx, ok := strings.Cut(id, ":")
	if !ok || !webgpu || !strings.EqualFold(name, "webgpu") {
		return false
	}
	n, err := strconv.Atoi(idx)
	return err == nil && n >= 0
}

// openBackend opens the device of a --backend flag ("" opens backends.Default). A name this
// binary does not know is a usage error (exit 2); a known device that fails to open (no such
// adapter, no driver) is an error (exit 1).
func openBackend(id string) (gpu.Backend, error) {
	id = strings.TrimSpace(id)
	if err := CheckBackend(id); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if env := envBackend(); id == "" && env != "" && !strings.EqualFold(env, "default") {
		// Opened here, not by backends.Default, which would fall back without a word.
		b, err := backends.Open(env)
		if err != nil {
			return nil, fmt.Errorf("cannot open the compute device $%s=%s: %s; 'kleinbild devices' lists the devices", backends.EnvBackend, env, plainBackendError(err, env))
		}
		return b, nil
	}
	b, err := backends.Open(id)
	if err != nil {
		return nil, fmt.Errorf("cannot open the compute device %s: %s; 'kleinbild devices' lists the devices", id, plainBackendError(err, id))
	}
	return b, nil
}

// envBackend is the trimmed value of $KLEINBILD_BACKEND.
func envBackend() string { return strings.TrimSpace(os.Getenv(backends.EnvBackend)) }

// plainBackendError is err's message without the registry's prefixes ("backends: open ID: ").
func plainBackendError(err error, id string) string {
	msg := strings.TrimPrefix(err.Error(), "backends: ")
	for _, p := range []string{"open " + id + ": ", fmt.Sprintf("%q: ", id)} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// deviceLine describes the device b runs on, e.g. "webgpu:0 llvmpipe (software, Vulkan)".
// id is what the user asked for; an explicit "webgpu:N" stays, anything else shows b's name.
func deviceLine(id string, b gpu.Backend) string {
	name := b.Name()
	if strings.Contains(id, ":") {
		name = strings.ToLower(strings.TrimSpace(id))
	}
	i := b.Info()
	return fmt.Sprintf("%s %s (%s, %s)", name, i.Name, i.Kind, i.API)
}

// printDevice writes the "Device: ..." line.
func printDevice(w io.Writer, id string, b gpu.Backend) {
	fmt.Fprintf(w, "Device: %s\n", deviceLine(id, b))
}
