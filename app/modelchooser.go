package app

import (
	"kleinbild/app/shell"

	"kleinbild/app/modelui"

	"os"
	"path/filepath"

	"fyne.io/fyne/v2/widget"

	"kleinbild/app/userdirs"
)

// chooseWeightFile is the file chooser's mode that picks one GGUF or safetensors file: it
// lists folders and those files, and tapping a file chooses it. (Its value stays clear of
// the modes declared with iota in filechooser.go.)
const chooseWeightFile chooseWhat = 64

// weightFileOK labels the chooser's confirm button in weight-file mode: a tap on a file
// chooses it, so the button only says so.
func weightFileOK(ok *widget.Button) {
	ok.SetText("Tap a file to choose it")
	ok.Disable()
}

// weightFilesSummary describes a listed folder in weight-file mode.
func weightFilesSummary(files, dirs int) string {
	what := countList(files, "model file", "model files", dirs, "folder", "folders")
	if files == 0 {
		if what == "" {
			return "No GGUF or safetensors files here."
		}
		return "No GGUF or safetensors files here (" + what + ")."
	}
	return what + ". Tap the file to use."
}

// browseWeightFile lets the user pick a GGUF or safetensors file in Kleinbild's chooser,
// starting in the folder of start (else home), and passes its path to set.
func browseWeightFile(sh *shell.Shell, start string, set func(string)) *fileChooser {
	start = modelui.CleanDir(start)
	return openChooser(sh, "Choose a model file (GGUF or safetensors)", chooseWeightFile, func() string {
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

// browseFolder lets the user pick a folder in Kleinbild's chooser, titled title, starting
// in the folder that holds start (else home), and passes its path to set.
func browseFolder(sh *shell.Shell, title, start string, set func(string)) *fileChooser {
	start = modelui.CleanDir(start)
	return openChooser(sh, title, chooseFolder, func() string {
		home, _ := userdirs.Dirs()
		if start != "" && userdirs.IsDir(filepath.Dir(start)) {
			return filepath.Dir(start)
		}
		if home != "" && userdirs.IsDir(home) {
			return home
		}
		wd, _ := os.Getwd()
		return wd
	}, func(p []string) { set(p[0]) })
}
