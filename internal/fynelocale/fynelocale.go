// Package fynelocale replaces the C/POSIX locale in the environment with en_US.UTF-8
// before Fyne reads it. Fyne's lang package parses the locale in its init and prints
// "Fyne error: Error parsing user locale C" (three lines, on every run, subcommands
// included) for LANG=C.UTF-8, the Debian and container default.
//
// It must run before fyne.io/fyne/v2/lang's init, which no package of module kleinbild
// can: since Go 1.21 packages are initialised in import-path order among those whose
// imports are done, and "kleinbild/..." sorts after "fyne.io/...". Hence this small module
// of its own whose path, "envfix/...", sorts first (go.mod replaces it with this folder);
// it imports only os and strings, so it is initialised as soon as those are. main imports
// it for its side effect.
package fynelocale

import (
	"os"
	"strings"
)

func init() { Fix(os.Getenv, os.Setenv) }

// Fix sets each locale variable that names the C or POSIX locale (with or without a
// codeset) to en_US.UTF-8: the same language, in a form BCP 47 parsers accept. Other values
// are left as they are.
func Fix(getenv func(string) string, setenv func(string, string) error) {
	for _, k := range []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(k)
		base, _, _ := strings.Cut(v, ".")
		if base == "C" || base == "POSIX" {
			_ = setenv(k, "en_US.UTF-8")
		}
	}
}
