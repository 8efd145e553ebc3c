package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
// does not know is an error, never silently replaced by the default (backends.Resolve).
func CheckBackend(id string) error {
	c, err := backends.Resolve(id)
	switch {
	case err == nil:
		return nil
	case c.FromEnv:
		return fmt.Errorf("$%s=%q: unknown device; 'kleinbild devices' lists the devices (unset it for the default)", backends.EnvBackend, c.ID)
	}
	msg := err.Error()
	if _, oerr := backends.Open(c.ID); oerr != nil { // an unknown name opens nothing: this is its reason
		msg = plainBackendError(oerr)
	}
	return fmt.Errorf("--backend %s: %s; 'kleinbild devices' lists the devices", c.ID, msg)
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

// openBackend opens the device of a --backend flag (backends.Resolve: "" or "default" is
// $KLEINBILD_BACKEND, else backends.Default). A name this binary does not know is a usage
// error (exit 2); a known device that fails to open (no such adapter, no driver) is an
// error (exit 1).
func openBackend(id string) (gpu.Backend, error) {
	if err := CheckBackend(id); err != nil {
		return nil, &usageError{Err: err}
	}
	c, _ := backends.Resolve(id)
	b, err := backends.Open(c.ID) // for $KLEINBILD_BACKEND opened here, not by backends.Default, which would fall back without a word
	switch {
	case err != nil && c.FromEnv:
		return nil, fmt.Errorf("cannot open the compute device $%s=%s: %s; 'kleinbild devices' lists the devices", backends.EnvBackend, c.ID, plainBackendError(err))
	case err != nil:
		return nil, fmt.Errorf("cannot open the compute device %s: %s; 'kleinbild devices' lists the devices", c.ID, plainBackendError(err))
	}
	return b, nil
}

// plainBackendError is err's reason without the registry's words ("backends: open ID: "):
// a *backends.OpenError's own error.
func plainBackendError(err error) string {
	var oe *backends.OpenError
	if errors.As(err, &oe) {
		return oe.Err.Error()
	}
	return err.Error()
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
