package cli

import (
	"flag"
	"strings"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// backendFlag adds the --backend flag: the compiled backends (backends.Names, best first),
// note appended to its help.
func backendFlag(fs *flag.FlagSet, note string) *string {
	return fs.String("backend", "", "compute backend: "+strings.Join(backends.Names(), ", ")+note)
}

// openBackend opens the backend of a --backend flag ("" opens backends.Default); an unknown
// name is a usage error.
func openBackend(name string) (gpu.Backend, error) {
	b, err := backends.Open(name)
	if err != nil {
		return nil, usageErr("--backend: %v", err)
	}
	return b, nil
}
