package chooser

import (
	"fmt"
	"os"
	"path/filepath"

	"kleinbild/app/humanize"
	"kleinbild/app/shell"
	"kleinbild/app/userdirs"
)

// weightFiles are the files of a chooser that picks one GGUF or safetensors file, which
// isWeight tells by its name: tapping one chooses it.
func weightFiles(isWeight func(name string) bool) Files {
	return Files{
		Want: isWeight,
		Check: func(p string) error {
			if !isWeight(p) {
				return fmt.Errorf("%s is not a GGUF or safetensors file", filepath.Base(p))
			}
			return nil
		},
		Summary: weightFilesSummary,
		One:     true,
	}
}

// weightFilesSummary describes a folder listed by a weight-file chooser.
func weightFilesSummary(files, dirs int) string {
	what := humanize.CountList(files, "model file", "model files", dirs, "folder", "folders")
	if files == 0 {
		if what == "" {
			return "No GGUF or safetensors files here."
		}
		return "No GGUF or safetensors files here (" + what + ")."
	}
	return what + ". Tap the file to use."
}

// BrowseWeightFile lets the user pick a GGUF or safetensors file (isWeight tells one by its
// name) in Kleinbild's chooser, starting in the folder of start (else home), and passes its
// path to set.
func BrowseWeightFile(sh *shell.Shell, start string, isWeight func(name string) bool, set func(string)) *Chooser {
	start = expandPath(start, "")
	return Open(sh, "Choose a model file (GGUF or safetensors)", weightFiles(isWeight), func() string {
		switch {
		case start != "" && userdirs.IsDir(start):
			return start
		case start != "" && userdirs.IsDir(filepath.Dir(start)):
			return filepath.Dir(start)
		}
		if home, _ := userdirs.Dirs(); home != "" && userdirs.IsDir(home) {
			return home
		}
		wd, _ := os.Getwd()
		return wd
	}, func(p []string) { set(p[0]) })
}

// BrowseFolder lets the user pick a folder in Kleinbild's chooser, titled title, starting
// in the folder that holds start (else home), and passes its path to set.
func BrowseFolder(sh *shell.Shell, title, start string, set func(string)) *Chooser {
	start = expandPath(start, "")
	return OpenFolder(sh, title, func() string {
		home, _ := userdirs.Dirs()
		if start != "" && userdirs.IsDir(filepath.Dir(start)) {
			return filepath.Dir(start)
		}
		if home != "" && userdirs.IsDir(home) {
			return home
		}
		wd, _ := os.Getwd()
		return wd
	}, set)
}
